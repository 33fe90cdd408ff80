package fantasyshim

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"charm.land/fantasy"
	fopenai "charm.land/fantasy/providers/openai"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

func start(id, name string) fantasy.StreamPart {
	return fantasy.StreamPart{Type: fantasy.StreamPartTypeToolInputStart, ID: id, ToolCallName: name}
}

func delta(id, frag string) fantasy.StreamPart {
	return fantasy.StreamPart{Type: fantasy.StreamPartTypeToolInputDelta, ID: id, Delta: frag}
}

// anthropicDelta is a fragment as fantasy's Anthropic model gives it.
func anthropicDelta(id, frag string) fantasy.StreamPart {
	return fantasy.StreamPart{Type: fantasy.StreamPartTypeToolInputDelta, ID: id, ToolCallInput: frag}
}

func inputEnd(id string) fantasy.StreamPart {
	return fantasy.StreamPart{Type: fantasy.StreamPartTypeToolInputEnd, ID: id}
}

func callPart(id, name, input string) fantasy.StreamPart {
	return fantasy.StreamPart{Type: fantasy.StreamPartTypeToolCall, ID: id, ToolCallName: name, ToolCallInput: input}
}

func text(id, t string) fantasy.StreamPart {
	return fantasy.StreamPart{Type: fantasy.StreamPartTypeTextDelta, ID: id, Delta: t}
}

var finish = fantasy.StreamPart{Type: fantasy.StreamPartTypeFinish, FinishReason: fantasy.FinishReasonToolCalls}

// trace renders the events of a stream one a line, without the
// assembler's random tool ids.
func trace(events []canonical.StreamEvent) string {
	var b strings.Builder
	for _, ev := range events {
		switch ev.Type {
		case canonical.EventToolUseStart:
			fmt.Fprintf(&b, "%d start %s\n", ev.Index, ev.ToolName)
		case canonical.EventToolUseInput:
			fmt.Fprintf(&b, "%d input %s\n", ev.Index, ev.PartialJSON)
		case canonical.EventToolUseEnd:
			fmt.Fprintf(&b, "%d end %s\n", ev.Index, ev.FinalInput)
		case canonical.EventTextDelta:
			fmt.Fprintf(&b, "%d text %s\n", ev.Index, ev.Text)
		case canonical.EventThinkingDelta:
			fmt.Fprintf(&b, "%d thinking %q %s\n", ev.Index, ev.Text, ev.Signature)
		case canonical.EventMessageComplete:
			fmt.Fprintf(&b, "complete %s", ev.Response.StopReason)
			for _, blk := range ev.Response.Content {
				if tu, ok := blk.(canonical.ToolUseBlock); ok {
					fmt.Fprintf(&b, " %s%s", tu.Name, tu.Input)
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestStreamToolCalls feeds fantasy StreamPart sequences through the
// stream and checks the canonical events: one tool block at a time, each
// with all its fragments in order, whatever order fantasy gives them in.
func TestStreamToolCalls(t *testing.T) {
	tests := []struct {
		name  string
		parts []fantasy.StreamPart
		want  string
		err   string // the error that fails the message, when there is one
	}{
		{
			// fantasy's Responses model: both calls open, fragments
			// interleaved by output_index, then each call's end.
			name: "responses interleaved",
			parts: []fantasy.StreamPart{
				start("call_a", "get_weather"), start("call_b", "get_weather"),
				delta("call_a", `{"city":`), delta("call_b", `{"city":`),
				delta("call_a", `"Oslo"}`), delta("call_b", `"Rome"}`),
				inputEnd("call_a"), callPart("call_a", "get_weather", `{"city":"Oslo"}`),
				inputEnd("call_b"), callPart("call_b", "get_weather", `{"city":"Rome"}`),
				finish,
			},
			want: `0 start get_weather
0 input {"city":
0 input "Oslo"}
0 end {"city":"Oslo"}
1 start get_weather
1 input {"city":
1 input "Rome"}
1 end {"city":"Rome"}
complete tool_use get_weather{"city":"Oslo"} get_weather{"city":"Rome"}
`,
		},
		{
			// The later call ends first: it waits for the earlier one.
			name: "responses later call ends first",
			parts: []fantasy.StreamPart{
				start("call_a", "get_weather"), start("call_b", "get_time"),
				delta("call_b", `{"tz":"UTC"}`), inputEnd("call_b"), callPart("call_b", "get_time", `{"tz":"UTC"}`),
				delta("call_a", `{"city":"Oslo"}`), inputEnd("call_a"), callPart("call_a", "get_weather", `{"city":"Oslo"}`),
				finish,
			},
			want: `0 start get_weather
0 input {"city":"Oslo"}
0 end {"city":"Oslo"}
1 start get_time
1 input {"tz":"UTC"}
1 end {"tz":"UTC"}
complete tool_use get_weather{"city":"Oslo"} get_time{"tz":"UTC"}
`,
		},
		{
			// fantasy's Chat model: a call's input ends when the next
			// starts; every ToolCall comes after the stream.
			name: "chat sequential",
			parts: []fantasy.StreamPart{
				start("call_a", "get_weather"), delta("call_a", `{"city":"Oslo"}`), inputEnd("call_a"),
				start("call_b", "get_weather"), delta("call_b", `{"city":"Rome"}`), inputEnd("call_b"),
				callPart("call_a", "get_weather", `{"city":"Oslo"}`), callPart("call_b", "get_weather", `{"city":"Rome"}`),
				finish,
			},
			want: `0 start get_weather
0 input {"city":"Oslo"}
0 end {"city":"Oslo"}
1 start get_weather
1 input {"city":"Rome"}
1 end {"city":"Rome"}
complete tool_use get_weather{"city":"Oslo"} get_weather{"city":"Rome"}
`,
		},
		{
			// A call the stream never ends is ended, and a waiting one
			// started, when the message finishes.
			name: "unended calls flushed at finish",
			parts: []fantasy.StreamPart{
				start("call_a", "get_weather"), start("call_b", "get_weather"),
				delta("call_b", `{"city":"Rome"}`), delta("call_a", `{"city":"Oslo"}`),
				finish,
			},
			want: `0 start get_weather
0 input {"city":"Oslo"}
0 end {"city":"Oslo"}
1 start get_weather
1 input {"city":"Rome"}
1 end {"city":"Rome"}
complete tool_use get_weather{"city":"Oslo"} get_weather{"city":"Rome"}
`,
		},
		{
			// fantasy's Responses model for a call whose arguments come
			// only in its output_item.done: ToolInputEnd, then the
			// ToolCall with them, which stream as one fragment.
			name: "arguments only in the ToolCall",
			parts: []fantasy.StreamPart{
				start("call_a", "read"), inputEnd("call_a"), callPart("call_a", "read", `{"path":"a.txt"}`),
				start("call_b", "read"), inputEnd("call_b"), callPart("call_b", "read", `{"path":"b.txt"}`),
				finish,
			},
			want: `0 start read
0 input {"path":"a.txt"}
0 end {"path":"a.txt"}
1 start read
1 input {"path":"b.txt"}
1 end {"path":"b.txt"}
complete tool_use read{"path":"a.txt"} read{"path":"b.txt"}
`,
		},
		{
			// The ToolCall's input is authoritative over the fragments.
			name: "final input wins",
			parts: []fantasy.StreamPart{
				start("toolu_1", "get_weather"), anthropicDelta("toolu_1", `{"city": "Paris"}`),
				callPart("toolu_1", "get_weather", `{"city":"Paris","unit":"c"}`), inputEnd("toolu_1"),
				finish,
			},
			want: `0 start get_weather
0 input {"city": "Paris"}
0 end {"city":"Paris","unit":"c"}
complete tool_use get_weather{"city":"Paris","unit":"c"}
`,
		},
		{
			// A Messages stream whose blocks interleave (fantasy's
			// Anthropic model passes it on): the text block closed the
			// tool block, so its late input cannot be placed.
			name: "fragment after another block began",
			parts: []fantasy.StreamPart{
				start("toolu_1", "get_weather"), anthropicDelta("toolu_1", ""),
				text("1", "Checking."), anthropicDelta("toolu_1", `{"city": "Paris"}`),
				finish,
			},
			want: `0 start get_weather
0 end {}
1 text Checking.
`,
			err: "server_error/invalid_response: tool call toolu_1 (get_weather) sent arguments after another block began",
		},
		{
			name: "fragment after its call ended",
			parts: []fantasy.StreamPart{
				start("call_a", "get_weather"), delta("call_a", `{"city":"Oslo"}`), inputEnd("call_a"),
				delta("call_a", "  \n"), delta("call_a", `,"x":1`),
				finish,
			},
			want: `0 start get_weather
0 input {"city":"Oslo"}
0 end {"city":"Oslo"}
`,
			err: "server_error/invalid_response: tool call call_a (get_weather) sent arguments after it ended",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []canonical.StreamEvent
			asm := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
				events = append(events, ev)
				return true
			}, "openai", "gpt-5", "req_1", nil)
			s := newStream(asm, "openai")
			var err error
			for _, p := range tt.parts {
				if err = s.part(&Adapter{}, p); err != nil {
					break
				}
			}
			if got := trace(events); got != tt.want {
				t.Errorf("events:\n%s\nwant:\n%s", got, tt.want)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.err != "":
				var ae *canonical.AdapterError
				if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want an AdapterError with %q", err, tt.err)
				}
			}
		})
	}
}

// TestStreamResponsesSignature checks that the Responses reasoning
// item's encrypted content fantasy keeps in the part's metadata becomes
// the thinking block's signature, streamed and not.
func TestStreamResponsesSignature(t *testing.T) {
	enc := "gAAAA-enc-1"
	md := fantasy.ProviderMetadata{fopenai.Name: &fopenai.ResponsesReasoningMetadata{ItemID: "rs_1", EncryptedContent: &enc}}
	var events []canonical.StreamEvent
	asm := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
		events = append(events, ev)
		return true
	}, "openai", "gpt-5", "req_1", nil)
	s := newStream(asm, "openai")
	for _, p := range []fantasy.StreamPart{
		{Type: fantasy.StreamPartTypeReasoningStart, ID: "rs_1", ProviderMetadata: md},
		{Type: fantasy.StreamPartTypeReasoningDelta, ID: "rs_1", Delta: "Adding.", ProviderMetadata: md},
		{Type: fantasy.StreamPartTypeReasoningEnd, ID: "rs_1", ProviderMetadata: md},
		{Type: fantasy.StreamPartTypeTextDelta, ID: "msg_1", Delta: "Four."},
		{Type: fantasy.StreamPartTypeFinish, FinishReason: fantasy.FinishReasonStop},
	} {
		if err := s.part(&Adapter{}, p); err != nil {
			t.Fatal(err)
		}
	}
	want := "0 thinking \"Adding.\" \n0 thinking \"\" gAAAA-enc-1\n1 text Four.\ncomplete end_turn\n"
	if got := trace(events); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	last := events[len(events)-1].Response
	if th, ok := last.Content[0].(canonical.ThinkingBlock); !ok || th.Signature != enc {
		t.Errorf("final content[0] = %#v, want a thinking block signed %q", last.Content[0], enc)
	}
}

// TestSignatureBack checks that a thinking block's signature goes back
// to fantasy's OpenAI provider as the Responses reasoning metadata.
func TestSignatureBack(t *testing.T) {
	a := &Adapter{kind: "openai"}
	opts, reason := a.signature("gAAAA-enc-1", "")
	m, ok := opts[fopenai.Name].(*fopenai.ResponsesReasoningMetadata)
	if !ok || m.EncryptedContent == nil || *m.EncryptedContent != "gAAAA-enc-1" {
		t.Fatalf("signature options %#v, want ResponsesReasoningMetadata with the encrypted content", opts)
	}
	if reason != "" {
		t.Errorf("signed: dropped (%s)", reason)
	}
	if opts, _ := a.signature("", ""); opts != nil {
		t.Errorf("unsigned: %#v, want no options", opts)
	}
}
