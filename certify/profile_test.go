package certify

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

func TestProfileOf(t *testing.T) {
	const head = "id: x\ntitle: x\nmodels: [anthropic:claude-sonnet-4-6]\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"plain call", "steps:\n  - user: hi\n  - call: {}\n", ProfileCore},
		{"plain stream", "requires: [streaming]\nsteps:\n  - user: hi\n  - call: {stream: true}\n", ProfileCore},
		{"tools", "tools: [{name: f, description: d, input_schema: {type: object}, side_effects: none}]\nsteps:\n  - user: hi\n  - call: {}\n", ProfileTools},
		{"thinking", "steps:\n  - user: hi\n  - call: {thinking: {budget_tokens: 1024}}\n", ProfileThinking},
		{"cancel", "steps:\n  - user: hi\n  - cancel: {after_events: 2}\n  - call: {stream: true}\n", ProfileStreaming},
		{"both", "steps:\n  - user: hi\n  - call: {both: true}\n", ProfileStreaming},
		{"inject", "steps:\n  - user: hi\n  - inject: {status: 429}\n  - call: {}\n", ProfileErrors},
		{"expected error", "steps:\n  - user: hi\n  - call: {}\n    expect: {error: {class: auth}}\n", ProfileErrors},
		{"fault beats thinking", "steps:\n  - user: hi\n  - inject: {status: 500}\n  - call: {thinking: {effort: low}}\n", ProfileErrors},
		{"swap", "steps:\n  - user: hi\n  - call: {}\n  - swap: openai:gpt-5\n  - call: {}\n", ProfileSwap},
		{"per-call model", "steps:\n  - user: hi\n  - call: {model: openai:gpt-5}\n", ProfileSwap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse("x.yaml", []byte(head+tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if got := ProfileOf(sc, sc.Models[0]); got != tc.want {
				t.Errorf("ProfileOf = %s, want %s", got, tc.want)
			}
		})
	}
}

// Every run of the built-in suite has a profile, and the suite covers
// every profile.
func TestSuiteCoversEveryProfile(t *testing.T) {
	scs, err := Builtin().Load()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range harness.Select(scs, harness.Config{Factories: providers.Factories()}) {
		prof := ProfileOf(p.Scenario, p.Model)
		if !slices.Contains(Profiles, prof) {
			t.Errorf("%s [%s]: profile %q is not one of %v", p.Scenario.ID, p.Model, prof, Profiles)
		}
		seen[prof] = true
	}
	for _, p := range Profiles {
		if !seen[p] {
			t.Errorf("no run of the suite is in profile %s", p)
		}
	}
}

func TestParseProfiles(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", Profiles, false},
		{"all", Profiles, false},
		{"tools,core", []string{ProfileCore, ProfileTools}, false},
		{" swap , swap", []string{ProfileSwap}, false},
		{"core,vision", nil, true},
	} {
		got, err := ParseProfiles(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseProfiles(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); !tc.wantErr && diff != "" {
			t.Errorf("ParseProfiles(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// Skip leaves out the scenarios it names by id glob or tag, and only
// those.
func TestPlanSkip(t *testing.T) {
	target := Target{Provider: "anthropic", New: providers.Factories()["anthropic"]}
	plan := func(opts Options) map[string]*scenario.Scenario {
		t.Helper()
		p, err := NewPlan(target, opts)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*scenario.Scenario{}
		for _, r := range p.Runs {
			out[r.Scenario.ID] = r.Scenario
		}
		return out
	}
	all := plan(Options{})
	kept := plan(Options{Skip: []string{"history/*", "faults"}})
	if all["history/empty-user-content"] == nil || all["faults/reset"] == nil || all["basic/plain-text"] == nil {
		t.Fatalf("the full plan lacks runs the test relies on")
	}
	for id, sc := range all {
		skipped := strings.HasPrefix(id, "history/") || slices.Contains(sc.Tags, "faults")
		if (kept[id] != nil) == skipped {
			t.Errorf("%s (tags %v): kept %v with --skip history/* faults", id, sc.Tags, kept[id] != nil)
		}
	}
}

// A scenario marked oracle: regression checks only metis's own choices:
// no certificate plans it; every other scenario of the provider stays.
func TestPlanLeavesOutRegressionScenarios(t *testing.T) {
	scs, err := Builtin().Load()
	if err != nil {
		t.Fatal(err)
	}
	regression := map[string]bool{}
	for _, sc := range scs {
		if sc.Oracle == scenario.OracleRegression {
			regression[sc.ID] = true
		}
	}
	if !regression["usage/openai-image-estimate"] || !regression["wire/responses-provider-raw-ids"] {
		t.Fatalf("the suite no longer marks the scenarios this test relies on: %v", regression)
	}
	for _, provider := range []string{"anthropic", "openai"} {
		p, err := NewPlan(Target{Provider: provider, New: providers.Factories()[provider]}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Runs) == 0 {
			t.Fatalf("%s: no runs planned", provider)
		}
		for _, r := range p.Runs {
			if regression[r.Scenario.ID] {
				t.Errorf("%s: planned %s, whose oracle is regression", provider, r.Name())
			}
		}
	}
}

// Certification compares a transcript on its contract fields: a run
// whose transcript differs from the suite's golden only in provider_raw
// passes, one with another tool input fails.
func TestPlanGoldenIsPortable(t *testing.T) {
	const golden = `[{"id": "msg_1", "role": "assistant",
  "content": [{"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.md"}}],
  "metadata": {"provider": "anthropic", "provider_raw": {"anthropic": {"id": "msg_emu_0001"}}}}]`
	p := &Plan{suite: Suite{Goldens: fstest.MapFS{"x/anthropic/m/transcript.json": {Data: []byte(golden)}}}}
	for _, tt := range []struct {
		name, got string
		pass      bool
	}{
		{"only provider_raw differs", strings.Replace(golden, "msg_emu_0001", "msg_01XYZ", 1), true},
		{"no provider_raw", strings.Replace(golden, `, "provider_raw": {"anthropic": {"id": "msg_emu_0001"}}`, "", 1), true},
		{"another tool input", strings.Replace(golden, "a.md", "b.md", 1), false},
	} {
		got, err := check.ContractTranscript([]byte(tt.got))
		if err != nil {
			t.Fatal(err)
		}
		diff, err := p.golden("goldens/x/anthropic/m/transcript.json", got)
		if err != nil {
			t.Fatal(err)
		}
		if (diff == "") != tt.pass {
			t.Errorf("%s: passes %t, want %t; diff:\n%s", tt.name, diff == "", tt.pass, diff)
		}
	}
}
