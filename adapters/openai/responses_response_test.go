package openai

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

// rsse frames Responses events with event names, as OpenAI sends them.
func rsse(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		typ := p
		if i := strings.Index(p, `"type":"`); i >= 0 {
			typ = p[i+8:]
			typ = typ[:strings.IndexByte(typ, '"')]
		}
		b.WriteString("event: " + typ + "\ndata: " + p + "\n\n")
	}
	return []byte(b.String())
}

const (
	rCreated   = `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[],"usage":null}}`
	rMsgAdded  = `{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}`
	rDelta     = `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}`
	rMsgDone   = `{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","text":"Hi","annotations":[]}],"role":"assistant"}}`
	rCompleted = `{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[],"usage":{"input_tokens":30,"input_tokens_details":{"cached_tokens":20},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2}}}}`
)

func TestResponsesStreamEdgeCases(t *testing.T) {
	tests := []struct {
		name         string
		body         []byte
		finished     bool
		stop         canonical.StopReason
		providerStop string
		content      string
		usage        canonical.TokenUsage
		errClass     canonical.ErrorClass
		errCode      string
		errSubstr    string
	}{
		{name: "text", body: rsse(rCreated, rMsgAdded, rDelta, rMsgDone, rCompleted), finished: true,
			stop: canonical.StopEndTurn, providerStop: "completed", content: `[{"type":"text","text":"Hi"}]`,
			usage: canonical.TokenUsage{InputTokens: 10, CachedInputTokens: 20, OutputTokens: 5, ReasoningTokens: 2}},
		{name: "data-only framing without sequence numbers",
			body:     sse(rMsgAdded, rDelta, rMsgDone, rCompleted),
			finished: true, stop: canonical.StopEndTurn, providerStop: "completed", content: `[{"type":"text","text":"Hi"}]`,
			usage: canonical.TokenUsage{InputTokens: 10, CachedInputTokens: 20, OutputTokens: 5, ReasoningTokens: 2}},
		{name: "type not first in the event",
			body:     sse(`{"delta":"Hi","type":"response.output_text.delta","output_index":0,"content_index":0}`, rCompleted),
			finished: true, stop: canonical.StopEndTurn, providerStop: "completed", content: `[{"type":"text","text":"Hi"}]`,
			usage: canonical.TokenUsage{InputTokens: 10, CachedInputTokens: 20, OutputTokens: 5, ReasoningTokens: 2}},
		{name: "text only in done events",
			body: rsse(rMsgAdded, `{"type":"response.output_text.done","output_index":0,"content_index":0,"text":"Whole"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Whole"}]}}`, rCompleted),
			finished: true, stop: canonical.StopEndTurn, providerStop: "completed", content: `[{"type":"text","text":"Whole"}]`,
			usage: canonical.TokenUsage{InputTokens: 10, CachedInputTokens: 20, OutputTokens: 5, ReasoningTokens: 2}},
		{name: "items only in response.completed are taken from it",
			body: rsse(rCreated, `{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[`+
				`{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"a"},{"type":"summary_text","text":"b"}],"encrypted_content":"E"},`+
				`{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":"{\"x\":1}"}]}}`),
			finished: true, stop: canonical.StopToolUse, providerStop: "completed",
			content: `[{"type":"thinking","text":"a\n\nb","signature":"E"},{"type":"tool_use","name":"f","input":{"x":1}}]`},
		{name: "summary deltas before their item",
			body: rsse(`{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"a"}`,
				`{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"b"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","encrypted_content":"E"}}`,
				rCompleted),
			finished: true, stop: canonical.StopEndTurn, providerStop: "completed", content: `[{"type":"thinking","text":"a\n\nb","signature":"E"}]`,
			usage: canonical.TokenUsage{InputTokens: 10, CachedInputTokens: 20, OutputTokens: 5, ReasoningTokens: 2}},
		{name: "unknown events are skipped undecoded",
			body: rsse(rMsgAdded, `{"type":"response.web_search_call.searching","output_index":5,"delta":{"not":"a string"}}`,
				`{"type":"response.output_text.annotation.added","annotation":{"type":"url_citation"},"output_index":"x"}`,
				rDelta, rMsgDone, rCompleted),
			finished: true, stop: canonical.StopEndTurn, providerStop: "completed", content: `[{"type":"text","text":"Hi"}]`,
			usage: canonical.TokenUsage{InputTokens: 10, CachedInputTokens: 20, OutputTokens: 5, ReasoningTokens: 2}},
		{name: "refusal", body: rsse(rMsgAdded, `{"type":"response.refusal.delta","output_index":0,"content_index":0,"delta":"No."}`,
			`{"type":"response.refusal.done","output_index":0,"content_index":0,"refusal":"No."}`,
			`{"type":"response.completed","response":{"status":"completed","output":[]}}`),
			finished: true, stop: canonical.StopContentFilter, providerStop: "completed", content: `[{"type":"text","text":"No."}]`},
		{name: "incomplete: max_output_tokens", body: rsse(rMsgAdded, rDelta,
			`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}}`),
			finished: true, stop: canonical.StopMaxTokens, providerStop: "max_output_tokens", content: `[{"type":"text","text":"Hi"}]`},
		{name: "incomplete: content_filter", body: rsse(rMsgAdded, rDelta,
			`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[]}}`),
			finished: true, stop: canonical.StopContentFilter, providerStop: "content_filter", content: `[{"type":"text","text":"Hi"}]`},
		{name: "incomplete for an unknown reason",
			body:     rsse(`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"gremlins"}}}`),
			errClass: canonical.ErrServer, errCode: canonical.CodeUnknownFinishReason, errSubstr: "gremlins"},
		{name: "truncated", body: rsse(rCreated, rMsgAdded, rDelta)},
		{name: "error event, documented shape",
			body:     rsse(rCreated, `{"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached. Please try again in 1.5s.","param":null,"sequence_number":1}`),
			errClass: canonical.ErrRateLimit, errSubstr: "Rate limit reached"},
		{name: "response.failed with server_error",
			body:     rsse(rCreated, `{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed."},"output":[]}}`),
			errClass: canonical.ErrServer, errSubstr: "The model failed."},
		{name: "response.failed with invalid_prompt",
			body:     rsse(`{"type":"response.failed","response":{"status":"failed","error":{"code":"invalid_prompt","message":"Bad prompt."}}}`),
			errClass: canonical.ErrServer, errSubstr: "Bad prompt."},
		{name: "arguments before the function_call item",
			body:     rsse(`{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{"}`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "before its function_call item"},
		{name: "malformed JSON names the event",
			body:     rsse(rCreated, `{"type":"response.output_text.delta","output_index":0,"delta":`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "responses stream event 2 (response.output_text.delta): malformed JSON"},
		{name: "malformed JSON without a leading type",
			body:     sse(`[1,2`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "responses stream event 1: malformed JSON"},
		{name: "completed without a response",
			body:     rsse(`{"type":"response.completed"}`),
			errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse, errSubstr: "without a response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := responsesDialect{provider: "openai"}
			r := runDecoder(d.DecodeStream, tc.body, nil)
			if tc.errClass != "" {
				var ae *canonical.AdapterError
				require.ErrorAs(t, r.err, &ae)
				assert.Equal(t, tc.errClass, ae.Class)
				assert.Equal(t, tc.errCode, ae.Code)
				assert.Contains(t, ae.Error(), tc.errSubstr)
				assert.Equal(t, "openai", ae.Provider)
				assert.Nil(t, r.resp)
				return
			}
			require.NoError(t, r.err)
			if !tc.finished {
				assert.Nil(t, r.resp)
				return
			}
			require.NotNil(t, r.resp)
			assert.Empty(t, streamFindings(r))
			assert.Equal(t, tc.stop, r.resp.StopReason)
			assert.Equal(t, tc.providerStop, r.resp.ProviderStopReason)
			if diff := cmp.Diff(tc.usage, r.resp.Usage); diff != "" {
				t.Errorf("r.resp.Usage mismatch (-want +got):\n%s", diff)
			}
			assertContent(t, tc.content, r.resp.Content)
		})
	}
}

func TestResponsesBodyErrors(t *testing.T) {
	d := responsesDialect{provider: "openai"}
	for body, want := range map[string]string{
		`{"status":"failed","error":{"code":"server_error","message":"broke"}}`: "broke",
		`{"status":"in_progress","output":[]}`:                                  `status "in_progress"`,
		`{"status":`:                                                            "responses body: malformed JSON",
	} {
		r := runBody(d.DecodeBody, []byte(body), nil)
		var ae *canonical.AdapterError
		require.ErrorAs(t, r.err, &ae, body)
		assert.Contains(t, ae.Error(), want)
		assert.Nil(t, r.resp)
	}
}

// TestResponsesRetryHintFromErrorEvent: a mid-stream rate limit's hint
// is kept for the caller.
func TestResponsesRetryHintFromErrorEvent(t *testing.T) {
	r := runDecoder(responsesDialect{provider: "openai"}.DecodeStream,
		rsse(`{"type":"error","code":"rate_limit_exceeded","message":"Please try again in 1.5s."}`), nil)
	var ae *canonical.AdapterError
	require.ErrorAs(t, r.err, &ae)
	assert.Equal(t, "1.5s", ae.RetryAfter.String())
}
