package record

import (
	"context"
	"fmt"
	"sync"

	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness"
)

// script is an emulator's Responder for one run: it answers every request
// with the reply of the call step being made, which the harness's
// BeforeCall hook sets. Retries of a call get the same reply.
type script struct {
	mu   sync.Mutex
	step *harness.Step
}

func (s *script) beforeCall(_ context.Context, c harness.CallInfo) error {
	s.mu.Lock()
	s.step = c.Step
	s.mu.Unlock()
	return nil
}

func (s *script) respond(c emulator.Call) (emulator.Reply, error) {
	s.mu.Lock()
	st := s.step
	s.mu.Unlock()
	if st == nil || st.Call == nil {
		return emulator.Reply{}, fmt.Errorf("a %s request arrived outside a call step", c.API)
	}
	if st.Call.Reply == nil {
		return emulator.Reply{}, fmt.Errorf("%s at %s has no reply script: add call.reply to record it", st.Name(), st.Pos)
	}
	return toEmulator(st.Call.Reply), nil
}

// toEmulator converts a scenario's reply script.
func toEmulator(r *harness.Reply) emulator.Reply {
	out := emulator.Reply{Text: r.Text, Thinking: r.Thinking, StopReason: r.StopReason}
	if r.Usage != nil {
		out.Usage = *r.Usage
	}
	for _, tc := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, emulator.ToolCall{ID: tc.ID, Name: tc.Name, Input: tc.Input})
	}
	return out
}
