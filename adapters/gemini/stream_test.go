package gemini

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// events joins hand-written GenerateContentResponses into an SSE body.
func events(chunks ...string) []byte {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: ")
		b.WriteString(c)
		b.WriteString("\r\n\r\n")
	}
	return []byte(b.String())
}

// TestStreamEventSequence checks the invariants and the exact event
// sequence of a recorded tool-call stream.
func TestStreamEventSequence(t *testing.T) {
	evs, _, err := decodeEvents(t, readFixture(t, "stream-functioncall-with-id-thinking", "response.txt"), nil)
	require.NoError(t, err)
	checkInvariants(t, evs)
	var types []canonical.EventType
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	if diff := cmp.Diff([]canonical.EventType{
		canonical.EventMessageStart,
		canonical.EventToolUseStart, canonical.EventToolUseInput, canonical.EventToolUseEnd,
		canonical.EventUsageUpdate, // the second chunk repeats the same usage: no second update
		canonical.EventMessageComplete,
	}, types); diff != "" {
		t.Errorf("types mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "weather", evs[1].ToolName)
	assert.Equal(t, testModel, evs[0].Model, "message.start carries the requested model")

	for _, name := range []string{"stream-thought-parts", "stream-image-inlinedata-input", "stream-text-after-function-response", "stream-functioncall-thought-signature"} {
		evs, _, err := decodeEvents(t, readFixture(t, name, "response.txt"), nil)
		require.NoError(t, err, name)
		checkInvariants(t, evs)
	}
}

// TestPartialJSONFidelity: the one tool.use_input_delta carries the args
// exactly as Gemini sent them, whitespace included.
func TestPartialJSONFidelity(t *testing.T) {
	evs, _, err := decodeEvents(t, readFixture(t, "stream-functioncall-with-id-thinking", "response.txt"), nil)
	require.NoError(t, err)
	var deltas []string
	for _, ev := range evs {
		if ev.Type == canonical.EventToolUseInput {
			deltas = append(deltas, ev.PartialJSON)
		}
		if ev.Type == canonical.EventToolUseEnd {
			assert.JSONEq(t, `{"location":"Florence, Italy"}`, string(ev.FinalInput))
		}
	}
	if diff := cmp.Diff([]string{`{"location": "Florence, Italy"}`}, deltas); diff != "" {
		t.Errorf("deltas mismatch (-want +got):\n%s", diff)
	}
}

func TestFinishReasons(t *testing.T) {
	text := `{"text":"partial"}`
	call := `{"functionCall":{"name":"f","args":{"a":1}}}`
	for _, tc := range []struct {
		reason string
		parts  string
		stop   canonical.StopReason
		class  canonical.ErrorClass
		code   string
	}{
		{"STOP", text, canonical.StopEndTurn, "", ""},
		{"STOP", call, canonical.StopToolUse, "", ""},
		{"MAX_TOKENS", text, canonical.StopMaxTokens, "", ""},
		{"MAX_TOKENS", "", canonical.StopMaxTokens, "", ""},
		{"SAFETY", "", canonical.StopContentFilter, "", ""},
		{"RECITATION", text, canonical.StopContentFilter, "", ""},
		{"BLOCKLIST", "", canonical.StopContentFilter, "", ""},
		{"PROHIBITED_CONTENT", "", canonical.StopContentFilter, "", ""},
		{"SPII", "", canonical.StopContentFilter, "", ""},
		{"IMAGE_SAFETY", "", canonical.StopContentFilter, "", ""},
		{"MALFORMED_FUNCTION_CALL", "", canonical.StopError, canonical.ErrServer, canonical.CodeMalformedToolCall},
		{"UNEXPECTED_TOOL_CALL", "", canonical.StopError, canonical.ErrServer, canonical.CodeMalformedToolCall},
		{"OTHER", text, canonical.StopError, canonical.ErrOther, canonical.CodeUnknownFinishReason},
		{"SOMETHING_NEW", text, canonical.StopError, canonical.ErrOther, canonical.CodeUnknownFinishReason},
	} {
		t.Run(tc.reason+"/"+tc.parts, func(t *testing.T) {
			content := `"content":{"parts":[` + tc.parts + `],"role":"model"},`
			if tc.parts == "" {
				content = ""
			}
			body := events(`{"candidates":[{` + content + `"finishReason":"` + tc.reason + `","finishMessage":"details","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}`)
			e := newEnv(t, sseReply(body))
			evs, err := adaptertest.Collect(e.a.Stream(context.Background(), userRequest(testModel, "hi")))
			resp := final(t, evs)
			assert.Equal(t, tc.stop, resp.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 3, OutputTokens: 2}, resp.Usage); diff != "" {
				t.Errorf("usage survives an error finish (-want +got):\n%s", diff)
			}
			if tc.class == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.reason, resp.ProviderStopReason)
				return
			}
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Contains(t, ae.Message, tc.reason+": details")

			// Complete reports the same error.
			e = newEnv(t, jsonReply(200, []byte(strings.TrimSuffix(strings.TrimPrefix(string(body), "data: "), "\r\n\r\n"))))
			_, err = e.a.Complete(context.Background(), userRequest(testModel, "hi"))
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.code, ae.Code)
		})
	}
}

func TestPromptBlocked(t *testing.T) {
	body := `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}`
	e := newEnv(t, jsonReply(200, []byte(body)))
	resp, err := e.a.Complete(context.Background(), userRequest(testModel, "hi"))
	require.NoError(t, err, "a blocked prompt is a normal response")
	assert.Equal(t, canonical.StopContentFilter, resp.StopReason)
	assert.Equal(t, "PROHIBITED_CONTENT", resp.ProviderStopReason)
	assert.Empty(t, resp.Content)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 9}, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
}

// TestTruncatedStream: a stream that ends without a finish reason is
// truncated, whatever it carried.
func TestTruncatedStream(t *testing.T) {
	for name, body := range map[string][]byte{
		"text without finish": events(`{"candidates":[{"content":{"parts":[{"text":"Hello"}]}}]}`),
		"empty":               nil,
		"cut mid-event":       []byte(`data: {"candidates":[{"content":{"parts":[{"text":"Hel`),
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, sseReply(body))
			evs, err := adaptertest.Collect(e.a.Stream(context.Background(), userRequest(testModel, "hi")))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrNetwork, ae.Class)
			assert.Equal(t, canonical.CodeStreamTruncated, ae.Code)
			if len(evs) > 0 {
				assert.Equal(t, canonical.StopError, final(t, evs).StopReason)
			}
		})
	}
}

// TestMidStreamError: an error status inside the stream ends the message
// with stop reason error and yields the classified error.
func TestMidStreamError(t *testing.T) {
	for name, chunk := range map[string]string{
		"object": `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`,
		"array":  `[{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}]`,
	} {
		t.Run(name, func(t *testing.T) {
			body := events(`{"candidates":[{"content":{"parts":[{"text":"Hello"}]}}]}`, chunk)
			e := newEnv(t, sseReply(body))
			evs, err := adaptertest.Collect(e.a.Stream(context.Background(), userRequest(testModel, "hi")))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrServer, ae.Class)
			assert.Equal(t, canonical.CodeOverloaded, ae.Code)
			assert.Equal(t, 503, ae.Status)
			assert.Equal(t, "gemini", ae.Provider)
			resp := final(t, evs)
			assert.Equal(t, canonical.StopError, resp.StopReason)
			if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Hello"}}, resp.Content); diff != "" {
				t.Errorf("partial content kept (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMalformedEvent(t *testing.T) {
	body := events(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}]}`, `{"candidates":[{"content":{"parts":[{"text":`)
	e := newEnv(t, sseReply(body))
	evs, err := adaptertest.Collect(e.a.Stream(context.Background(), userRequest(testModel, "hi")))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeInvalidResponse, ae.Code)
	assert.Contains(t, ae.Message, "stream event 2")
	assert.Equal(t, canonical.StopError, final(t, evs).StopReason)

	e = newEnv(t, jsonReply(200, []byte(`{"candidates":`)))
	_, err = e.a.Complete(context.Background(), userRequest(testModel, "hi"))
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeInvalidResponse, ae.Code)
	assert.Contains(t, ae.Message, "decoding response body")
}

// TestSignaturePlacement covers the per-part signature rules.
func TestSignaturePlacement(t *testing.T) {
	for _, tc := range []struct {
		name    string
		parts   []string
		blocks  []canonical.BlockType
		raw     providerRaw
		thought []string // signatures of thinking blocks, in order
	}{
		{
			name:   "signature on a final empty text part joins the text block",
			parts:  []string{`{"text":"Hello"}`, `{"text":" world"}`, `{"text":"","thoughtSignature":"c2ln"}`},
			blocks: []canonical.BlockType{canonical.BlockText},
			raw:    providerRaw{Signatures: map[string]string{"0": "c2ln"}},
		},
		{
			name:   "signature on an empty text part after a call is trailing",
			parts:  []string{`{"functionCall":{"name":"f","args":{}}}`, `{"text":"","thoughtSignature":"dHJhaWw="}`},
			blocks: []canonical.BlockType{canonical.BlockToolUse},
			raw:    providerRaw{Trailing: "dHJhaWw="},
		},
		{
			name:   "a second signed text part starts a new block",
			parts:  []string{`{"text":"one","thoughtSignature":"czE="}`, `{"text":"two","thoughtSignature":"czI="}`},
			blocks: []canonical.BlockType{canonical.BlockText, canonical.BlockText},
			raw:    providerRaw{Signatures: map[string]string{"0": "czE=", "1": "czI="}},
		},
		{
			name:    "each signed thought part keeps its own block",
			parts:   []string{`{"text":"a","thought":true,"thoughtSignature":"dDE="}`, `{"text":"b","thought":true,"thoughtSignature":"dDI="}`, `{"text":"answer"}`},
			blocks:  []canonical.BlockType{canonical.BlockThinking, canonical.BlockThinking, canonical.BlockText},
			thought: []string{"dDE=", "dDI="},
		},
		{
			name:    "a signature-only thought part signs the open thinking block",
			parts:   []string{`{"text":"plan","thought":true}`, `{"thought":true,"thoughtSignature":"dGg="}`},
			blocks:  []canonical.BlockType{canonical.BlockThinking},
			thought: []string{"dGg="},
		},
		{
			name:   "non-canonical parts are skipped with their signatures",
			parts:  []string{`{"text":"see"}`, `{"inlineData":{"mimeType":"image/png","data":"AA=="},"thoughtSignature":"aW1n"}`, `{"executableCode":{"code":"1"}}`},
			blocks: []canonical.BlockType{canonical.BlockText},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var chunks []string
			for _, p := range tc.parts {
				chunks = append(chunks, `{"candidates":[{"content":{"parts":[`+p+`]}}]}`)
			}
			chunks = append(chunks, `{"candidates":[{"finishReason":"STOP"}]}`)
			evs, _, err := decodeEvents(t, events(chunks...), nil)
			require.NoError(t, err)
			checkInvariants(t, evs)
			resp := final(t, evs)
			var types []canonical.BlockType
			var sigs []string
			for _, b := range resp.Content {
				types = append(types, b.Type())
				if th, ok := b.(canonical.ThinkingBlock); ok {
					sigs = append(sigs, th.Signature)
				}
			}
			if diff := cmp.Diff(tc.blocks, types); diff != "" {
				t.Errorf("types mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.raw, parseRaw(resp.ProviderRaw)); diff != "" {
				t.Errorf("parseRaw(resp.ProviderRaw) mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.thought, sigs); diff != "" {
				t.Errorf("sigs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCostTokenMapping: all of Gemini's token fields map onto the four
// canonical counts (plus reasoning).
func TestCostTokenMapping(t *testing.T) {
	body := `{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP"}],
		"usageMetadata":{"promptTokenCount":1000,"cachedContentTokenCount":400,"toolUsePromptTokenCount":10,
		"candidatesTokenCount":50,"thoughtsTokenCount":20,"totalTokenCount":1080}}`
	e := newEnv(t, jsonReply(200, []byte(body)))
	resp, err := e.a.Complete(context.Background(), userRequest(testModel, "hi"))
	require.NoError(t, err)
	if diff := cmp.Diff(canonical.TokenUsage{
		InputTokens:       1000 + 10 - 400,
		CachedInputTokens: 400,
		OutputTokens:      50 + 20,
		ReasoningTokens:   20,
	}, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
}

// TestStreamingUsageMatchesNonStreaming: the same answer, streamed in
// chunks or sent as one body, gives the same content, stop reason, usage
// and signatures.
func TestStreamingUsageMatchesNonStreaming(t *testing.T) {
	sse := events(
		`{"candidates":[{"content":{"parts":[{"text":"thinking","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":12,"thoughtsTokenCount":5}}`,
		`{"candidates":[{"content":{"parts":[{"text":"Hello","thoughtSignature":"c2ln"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":1,"thoughtsTokenCount":5}}`,
		`{"candidates":[{"content":{"parts":[{"text":", world"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"cachedContentTokenCount":4,"candidatesTokenCount":3,"thoughtsTokenCount":5}}`,
	)
	whole := `{"candidates":[{"content":{"parts":[{"text":"thinking","thought":true},{"text":"Hello, world","thoughtSignature":"c2ln"}],"role":"model"},"finishReason":"STOP","index":0}],
		"usageMetadata":{"promptTokenCount":12,"cachedContentTokenCount":4,"candidatesTokenCount":3,"thoughtsTokenCount":5}}`

	e := newEnv(t, sseReply(sse))
	evs, err := adaptertest.Collect(e.a.Stream(context.Background(), userRequest(testModel, "hi")))
	require.NoError(t, err)
	streamed := final(t, evs)
	var lastUpdate *canonical.TokenUsage
	for _, ev := range evs {
		if ev.Type == canonical.EventUsageUpdate {
			lastUpdate = ev.Usage
		}
	}

	e = newEnv(t, jsonReply(200, []byte(whole)))
	single, err := e.a.Complete(context.Background(), userRequest(testModel, "hi"))
	require.NoError(t, err)

	want := canonical.TokenUsage{InputTokens: 8, CachedInputTokens: 4, OutputTokens: 8, ReasoningTokens: 5}
	if diff := cmp.Diff(want, streamed.Usage); diff != "" {
		t.Errorf("streamed.Usage mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, single.Usage); diff != "" {
		t.Errorf("single.Usage mismatch (-want +got):\n%s", diff)
	}
	require.NotNil(t, lastUpdate)
	if diff := cmp.Diff(want, *lastUpdate); diff != "" {
		t.Errorf("the last usage.update is the final usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(single.Content, streamed.Content); diff != "" {
		t.Errorf("streamed.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, single.StopReason, streamed.StopReason)
	assert.JSONEq(t, string(single.ProviderRaw), string(streamed.ProviderRaw))
	assert.JSONEq(t, `{"signatures":{"1":"c2ln"}}`, string(streamed.ProviderRaw))
}

// TestConsumerStops: breaking out of the iterator stops decoding.
func TestConsumerStops(t *testing.T) {
	e := newEnv(t, sseReply(readFixture(t, "stream-thought-parts", "response.txt")))
	n := 0
	for _, err := range e.a.Stream(context.Background(), userRequest(testModel, "hi")) {
		require.NoError(t, err)
		n++
		if n == 3 {
			break
		}
	}
	assert.Equal(t, 3, n)
}

// TestDecodeBodyArray: an array of responses (streamGenerateContent
// without alt=sse) decodes like the stream.
func TestDecodeBodyArray(t *testing.T) {
	body := `[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]},{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP"}]}]`
	a := driver.NewAssembler(nil, DefaultName, testModel, "req_1", nil)
	require.NoError(t, decodeBody([]byte(body), a))
	resp := a.Response()
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "ab"}}, resp.Content); diff != "" {
		t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
}
