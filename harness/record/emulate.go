package record

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/scenario"
)

// script is an emulator's Responder for one run: it answers every request
// with the reply of the call step being made, which the harness's
// BeforeCall hook sets, rendered with the emulator profile of the call's
// server. Retries of a call get the same reply.
type script struct {
	reg    *adapters.Registry
	getenv func(string) string

	mu      sync.Mutex
	step    *scenario.Step
	profile string
}

func newScript(reg *adapters.Registry, getenv func(string) string) *script {
	return &script{reg: reg, getenv: getenv}
}

func (s *script) beforeCall(_ context.Context, c harness.CallInfo) error {
	profile := s.profileOf(c.Provider)
	s.mu.Lock()
	s.step, s.profile = c.Step, profile
	s.mu.Unlock()
	return nil
}

// profileOf names the emulator profile for an adapter of the registry:
// an OpenAI-compatible server's kind selects its server's profile
// (emulator.ProfileForServer); everything else gets its API's reference.
func (s *script) profileOf(adapter string) string {
	if s.reg == nil {
		return ""
	}
	cfg, err := s.reg.Config(adapter, s.getenv)
	if err != nil || cfg.Type != "openaicompat" {
		return ""
	}
	kind, _ := cfg.Options["kind"].(string)
	if p, ok := emulator.ProfileForServer(kind); ok {
		return p.Name
	}
	return ""
}

func (s *script) respond(c emulator.Call) (emulator.Reply, error) {
	s.mu.Lock()
	st, profile := s.step, s.profile
	s.mu.Unlock()
	if st == nil || st.Call == nil {
		return emulator.Reply{}, fmt.Errorf("a %s request arrived outside a call step", c.API)
	}
	if st.Call.Reply == nil {
		return emulator.Reply{}, fmt.Errorf("%s at %s has no reply script: add call.reply to record it", st.Name(), st.Pos)
	}
	r := toEmulator(st.Call.Reply)
	r.Profile = profile
	return r, nil
}

// toEmulator converts a scenario's reply script.
func toEmulator(r *scenario.Reply) emulator.Reply {
	out := emulator.Reply{Text: r.Text, Thinking: r.Thinking, Signature: r.Signature, StopReason: r.StopReason, StopSequence: r.StopSequence,
		Model: r.Model, InterleaveToolArguments: r.InterleaveToolArguments, StreamFunctionCallArguments: r.StreamFunctionCallArguments}
	if r.Usage != nil {
		out.Usage = *r.Usage
	}
	for _, tc := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, emulator.ToolCall{ID: tc.ID, Name: tc.Name, Input: tc.Input})
	}
	return out
}

// ImportedTag marks a scenario whose cassettes are imported real traffic
// (`record import`): record leaves its runs alone, whatever the flags.
const ImportedTag = "imported"

// EditedTag marks a scenario whose cassettes were edited by hand after
// recording to carry bytes no emulator profile renders (a quirk of a real
// server; the cassette's provenance says what on an "# edited:" line):
// record leaves its runs alone, whatever the flags, since re-recording
// would drop the quirk the scenario exists for.
const EditedTag = "edited"

// notRecordable says why record leaves a run alone, or "": the scenario
// is tagged imported or edited, or its existing cassettes hold imported
// traffic; only `record import`, or a hand edit, changes those.
func (s *session) notRecordable(p harness.Pair, pl *plan) string {
	if slices.Contains(p.Scenario.Tags, ImportedTag) {
		return "its cassettes are imported real traffic (tag " + ImportedTag + "); change them with `record import`"
	}
	if slices.Contains(p.Scenario.Tags, EditedTag) {
		return "its cassettes were edited by hand to carry a real server's quirk (tag " + EditedTag + "); re-recording would drop it"
	}
	for _, prov := range pl.providers {
		if !pl.existing[prov] {
			continue
		}
		if prov, err := ReadProvenance(pl.paths[prov]); err == nil && prov.Source == SourceImported {
			return "its cassette holds imported real traffic (" + prov.OriginFile + "); change it with `record import`"
		}
	}
	return ""
}
