package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	anthropicsse "github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/openai/openai-go/v3"
	openaisse "github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"
)

// Each SDK decodes the same bytes as metis through its own stream decoder
// and accumulates the events as its documentation shows: Anthropic's
// Message.Accumulate, openai-go's ChatCompletionAccumulator, and, where
// the SDK has no accumulator (OpenAI Responses, Gemini), the few lines a
// caller writes to collect text, reasoning and tool arguments.

// sseResponse is the *http.Response the SDKs' decoders read: a 2xx event
// stream over body.
func sseResponse(body io.Reader) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)}
}

func anthropicSDK(_ testing.TB, body []byte) impl {
	return anthropicStream(bytesBody(body))
}

func anthropicStream(body func() io.Reader) impl {
	return func() (outcome, error) {
		s := anthropicsse.NewStream[anthropic.MessageStreamEventUnion](anthropicsse.NewDecoder(sseResponse(body())), nil)
		defer s.Close()
		var msg anthropic.Message
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				return outcome{}, err
			}
		}
		if err := s.Err(); err != nil {
			return outcome{}, err
		}
		var o outcome
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				o.Text += b.Text
			case "thinking":
				o.Thinking += b.Thinking
			case "tool_use":
				o.addTool(b.Name, b.Input)
			}
		}
		return o, nil
	}
}

func chatSDK(_ testing.TB, body []byte) impl {
	return chatStream(bytesBody(body))
}

func chatStream(body func() io.Reader) impl {
	return func() (outcome, error) {
		s := openaisse.NewStream[openai.ChatCompletionChunk](openaisse.NewDecoder(sseResponse(body())), nil)
		defer s.Close()
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			return outcome{}, err
		}
		var o outcome
		if len(acc.Choices) > 0 {
			m := acc.Choices[0].Message
			o.Text = m.Content
			for _, tc := range m.ToolCalls {
				o.addTool(tc.Function.Name, []byte(tc.Function.Arguments))
			}
		}
		return o, nil
	}
}

func responsesSDK(_ testing.TB, body []byte) impl {
	return responsesStream(bytesBody(body))
}

// responsesStream collects a Responses stream as a caller of openai-go
// does, which has no accumulator for it: text and reasoning summary
// deltas (a blank line between summary parts, as metis joins them), and
// each function call's argument deltas by item.
func responsesStream(body func() io.Reader) impl {
	return func() (outcome, error) {
		s := openaisse.NewStream[responses.ResponseStreamEventUnion](openaisse.NewDecoder(sseResponse(body())), nil)
		defer s.Close()
		var (
			text, thinking strings.Builder
			names          []string
			order          []string
			args           = map[string]*strings.Builder{}
		)
		for s.Next() {
			ev := s.Current()
			switch ev.Type {
			case "response.output_text.delta":
				text.WriteString(ev.Delta)
			case "response.reasoning_summary_text.delta":
				thinking.WriteString(ev.Delta)
			case "response.reasoning_summary_part.added":
				if ev.SummaryIndex > 0 {
					thinking.WriteString("\n\n") // one reasoning text, its parts apart
				}
			case "response.output_item.added":
				if ev.Item.Type == "function_call" {
					names = append(names, ev.Item.Name)
					order = append(order, ev.Item.ID)
					args[ev.Item.ID] = &strings.Builder{}
				}
			case "response.function_call_arguments.delta":
				if a := args[ev.ItemID]; a != nil {
					a.WriteString(ev.Delta)
				}
			}
		}
		if err := s.Err(); err != nil {
			return outcome{}, err
		}
		o := outcome{Text: text.String(), Thinking: thinking.String()}
		for i, id := range order {
			o.addTool(names[i], []byte(args[id].String()))
		}
		return o, nil
	}
}

func geminiSDK(tb testing.TB, body []byte) impl {
	return geminiStream(tb, bytesBody(body))
}

// geminiStream streams through genai's client (its SSE decoder is not
// exported) over a transport that answers from memory, collecting the
// parts as a caller does: genai has no accumulator.
func geminiStream(tb testing.TB, body func() io.Reader) impl {
	tb.Helper()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     "test-FAKE",
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: &http.Client{Transport: memTransport{body, "text/event-stream"}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	contents := genai.Text("hi")
	return func() (outcome, error) {
		var text, thinking strings.Builder
		var o outcome
		for resp, err := range client.Models.GenerateContentStream(ctx, "gemini-2.5-pro", contents, nil) {
			if err != nil {
				return outcome{}, err
			}
			if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
				continue
			}
			for _, p := range resp.Candidates[0].Content.Parts {
				switch {
				case p.FunctionCall != nil:
					args, err := json.Marshal(p.FunctionCall.Args)
					if err != nil {
						return outcome{}, err
					}
					o.addTool(p.FunctionCall.Name, args)
				case p.Thought:
					thinking.WriteString(p.Text)
				default:
					text.WriteString(p.Text)
				}
			}
		}
		o.Text, o.Thinking = text.String(), thinking.String()
		if o.Text == "" && o.Thinking == "" && len(o.Tools) == 0 {
			return o, errors.New("genai: empty stream")
		}
		return o, nil
	}
}
