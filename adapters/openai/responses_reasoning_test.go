package openai

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// wireContent is content with each tool_use id replaced by the provider
// id the tool-id map holds for it, so that it compares across calls.
func wireContent(content canonical.Blocks, ids canonical.ToolIDMap) canonical.Blocks {
	out := make(canonical.Blocks, len(content))
	for i, b := range content {
		if tu, ok := b.(canonical.ToolUseBlock); ok {
			tu.ID = ids.Wire("openai", tu.ID)
			b = tu
		}
		out[i] = b
	}
	return out
}

// TestResponsesEveryReasoningItem: every reasoning item is a thinking
// block in output order, an item with no summary and no
// encrypted_content an empty unsigned one; response.completed's
// encrypted_content (re-encrypted, so different) wins over
// output_item.done's. Streamed and non-streamed give the same content.
// The bytes follow the Responses API reference: gpt-5 with tools and
// reasoning summaries, where the first reasoning item carries nothing.
func TestResponsesEveryReasoningItem(t *testing.T) {
	d := responsesDialect{provider: "openai", reasoning: true}
	want := canonical.Blocks{
		canonical.ThinkingBlock{},
		canonical.ToolUseBlock{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)},
		canonical.ThinkingBlock{Text: "Checking Rome too.", Signature: "enc_b_final"},
		canonical.ToolUseBlock{ID: "call_2", Name: "get_weather", Input: json.RawMessage(`{"city":"Rome"}`)},
	}
	for _, tt := range []struct {
		name string
		run  func(ids canonical.ToolIDMap) decodeResult
	}{
		{"stream", func(ids canonical.ToolIDMap) decodeResult {
			return runDecoder(d.DecodeStream, readTestdata(t, "responses_reasoning_items.sse"), ids)
		}},
		{"body", func(ids canonical.ToolIDMap) decodeResult {
			return runBody(d.DecodeBody, readTestdata(t, "responses_reasoning_items.json"), ids)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids := adapters.NewToolIDMap()
			r := tt.run(ids)
			require.NoError(t, r.err)
			require.NotNil(t, r.resp)
			assert.Empty(t, streamFindings(r))
			if diff := cmp.Diff(want, wireContent(r.resp.Content, ids)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			assert.Equal(t, "gpt-5-2025-08-07", r.resp.ServedModel)
			var raw providerRaw
			require.NoError(t, json.Unmarshal(r.resp.ProviderRaw, &raw))
			wantRaw := map[string]rawItem{
				"0": {Type: "reasoning", ID: "rs_a"},
				"1": {Type: "function_call", ID: "fc_1"},
				"2": {Type: "reasoning", ID: "rs_b"},
				"3": {Type: "function_call", ID: "fc_2"},
			}
			if diff := cmp.Diff(wantRaw, raw.Items); diff != "" {
				t.Errorf("provider_raw items (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("stream signature events", func(t *testing.T) {
		r := runDecoder(d.DecodeStream, readTestdata(t, "responses_reasoning_items.sse"), nil)
		require.NoError(t, r.err)
		var sigs []string
		for _, ev := range r.events {
			if ev.Type == canonical.EventThinkingDelta && ev.Signature != "" {
				sigs = append(sigs, ev.Signature)
			}
		}
		// The stream carried output_item.done's value when the block
		// closed; message.complete carries the final one.
		if diff := cmp.Diff([]string{"enc_b_done"}, sigs); diff != "" {
			t.Errorf("sigs mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestResponsesCompletedWins: where response.completed restates an item
// the stream delivered with other text, its non-empty value is final;
// an empty value erases nothing.
func TestResponsesCompletedWins(t *testing.T) {
	d := responsesDialect{provider: "openai", reasoning: true}
	done := `{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"draft"}],"encrypted_content":"enc_1"}}`
	msg := `{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi"}]}}`
	tests := []struct {
		name      string
		completed string
		want      canonical.Blocks
	}{
		{name: "final text and signature win",
			completed: `{"type":"response.completed","response":{"status":"completed","output":[` +
				`{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"final"}],"encrypted_content":"enc_2"},` +
				`{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hello"}]}]}}`,
			want: canonical.Blocks{canonical.ThinkingBlock{Text: "final", Signature: "enc_2"}, canonical.TextBlock{Text: "Hello"}}},
		{name: "empty final values erase nothing",
			completed: `{"type":"response.completed","response":{"status":"completed","output":[` +
				`{"id":"rs_1","type":"reasoning","summary":[]},` +
				`{"id":"msg_1","type":"message","content":[{"type":"output_text","text":""}]}]}}`,
			want: canonical.Blocks{canonical.ThinkingBlock{Text: "draft", Signature: "enc_1"}, canonical.TextBlock{Text: "Hi"}}},
		{name: "final output without the streamed items",
			completed: `{"type":"response.completed","response":{"status":"completed","output":[]}}`,
			want:      canonical.Blocks{canonical.ThinkingBlock{Text: "draft", Signature: "enc_1"}, canonical.TextBlock{Text: "Hi"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runDecoder(d.DecodeStream, rsse(done, msg, tt.completed), nil)
			require.NoError(t, r.err)
			require.NotNil(t, r.resp)
			if diff := cmp.Diff(tt.want, r.resp.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("an item of another type is invalid", func(t *testing.T) {
		completed := `{"type":"response.completed","response":{"status":"completed","output":[` +
			`{"id":"fc_1","type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}}`
		r := runDecoder(d.DecodeStream, rsse(done, completed), nil)
		assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(r.err), "%v", r.err)
		assert.Nil(t, r.resp)
	})
}
