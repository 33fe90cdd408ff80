package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// decodeWhole runs decodeBody over body (one GenerateContentResponse, or
// the JSON array streamGenerateContent sends without alt=sse).
func decodeWhole(t *testing.T, body []byte) (*canonical.Response, error) {
	t.Helper()
	a := driver.NewAssembler(nil, DefaultName, testModel, "req_test", adapters.NewToolIDMap())
	if err := decodeBody(body, a); err != nil {
		return nil, err
	}
	if !a.Finished() {
		return nil, nil
	}
	return a.Response(), nil
}

// comparable is what must not depend on the enums' form.
type comparable struct {
	Content     canonical.Blocks
	Stop        canonical.StopReason
	Provider    string
	ProviderRaw string
	Usage       canonical.TokenUsage
}

func summary(r *canonical.Response) comparable {
	return comparable{r.Content, r.StopReason, r.ProviderStopReason, string(r.ProviderRaw), r.Usage}
}

// TestIntegerEnums: finishReason, blockReason and the safety ratings'
// category and probability decode the same as names or as the numbers of
// google.ai.generativelanguage.v1beta (and a role given as a number is
// no obstacle), whole, as a JSON array (alt=json streams) and streamed.
func TestIntegerEnums(t *testing.T) {
	tests := []struct {
		name     string
		names    string // the response with enum names, as the REST API writes it
		numbers  string // the same response with enum numbers
		stop     canonical.StopReason
		provider string
		raw      string
		errCode  string
	}{
		{name: "STOP",
			names:   `{"candidates":[{"content":{"parts":[{"text":"Hi."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2},"modelVersion":"gemini-1.5-pro"}`,
			numbers: `{"candidates":[{"content":{"parts":[{"text":"Hi."}],"role":2},"finishReason":1,"index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2},"modelVersion":"gemini-1.5-pro"}`,
			stop:    canonical.StopEndTurn, provider: "STOP"},
		{name: "MAX_TOKENS",
			names:   `{"candidates":[{"content":{"parts":[{"text":"Once upon"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}]}`,
			numbers: `{"candidates":[{"content":{"parts":[{"text":"Once upon"}],"role":"model"},"finishReason":2,"index":0}]}`,
			stop:    canonical.StopMaxTokens, provider: "MAX_TOKENS"},
		{name: "SAFETY with ratings",
			names: `{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[` +
				`{"category":"HARM_CATEGORY_SEXUALLY_EXPLICIT","probability":"NEGLIGIBLE"},` +
				`{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}]}`,
			numbers: `{"candidates":[{"finishReason":3,"index":0,"safetyRatings":[` +
				`{"category":9,"probability":1},` +
				`{"category":10,"probability":4,"blocked":true}]}]}`,
			stop: canonical.StopContentFilter, provider: "SAFETY",
			raw: `{"safety_ratings":[{"category":"HARM_CATEGORY_SEXUALLY_EXPLICIT","probability":"NEGLIGIBLE"},` +
				`{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}`},
		{name: "LANGUAGE",
			names:   `{"candidates":[{"finishReason":"LANGUAGE","index":0}]}`,
			numbers: `{"candidates":[{"finishReason":6,"index":0}]}`,
			stop:    canonical.StopContentFilter, provider: "LANGUAGE"},
		{name: "prompt blocked",
			names:   `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"MEDIUM","blocked":true}]}}`,
			numbers: `{"promptFeedback":{"blockReason":1,"safetyRatings":[{"category":7,"probability":3,"blocked":true}]}}`,
			stop:    canonical.StopContentFilter, provider: "SAFETY",
			raw: `{"safety_ratings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"MEDIUM","blocked":true}]}`},
		{name: "prompt blocked as PROHIBITED_CONTENT",
			names:   `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}`,
			numbers: `{"promptFeedback":{"blockReason":4}}`,
			stop:    canonical.StopContentFilter, provider: "PROHIBITED_CONTENT"},
		{name: "MALFORMED_FUNCTION_CALL",
			names:   `{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","index":0}]}`,
			numbers: `{"candidates":[{"finishReason":10,"index":0}]}`,
			errCode: canonical.CodeMalformedToolCall},
		{name: "a number the table does not know",
			names:   `{"candidates":[{"finishReason":"FINISH_REASON_99","index":0}]}`,
			numbers: `{"candidates":[{"finishReason":99,"index":0}]}`,
			errCode: canonical.CodeUnknownFinishReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forms := map[string]func(string) (*canonical.Response, error){
				"body": func(b string) (*canonical.Response, error) { return decodeWhole(t, []byte(b)) },
				"array": func(b string) (*canonical.Response, error) {
					return decodeWhole(t, []byte("[\n"+b+"\n]"))
				},
				"stream": func(b string) (*canonical.Response, error) {
					evs, a, err := decodeEvents(t, []byte("data: "+b+"\r\n\r\n"), nil)
					if err != nil || !a.Finished() {
						return nil, err
					}
					checkInvariants(t, evs)
					return final(t, evs), nil
				},
			}
			for form, run := range forms {
				byName, err1 := run(tt.names)
				byNumber, err2 := run(tt.numbers)
				if tt.errCode != "" {
					assert.Equal(t, tt.errCode, canonical.CodeOf(err1), "%s, names: %v", form, err1)
					assert.Equal(t, tt.errCode, canonical.CodeOf(err2), "%s, numbers: %v", form, err2)
					continue
				}
				require.NoError(t, err1, form)
				require.NoError(t, err2, form)
				require.NotNil(t, byName, form)
				require.NotNil(t, byNumber, form)
				assert.Equal(t, tt.stop, byNumber.StopReason, form)
				assert.Equal(t, tt.provider, byNumber.ProviderStopReason, form)
				if tt.raw == "" {
					assert.Empty(t, byNumber.ProviderRaw, form)
				} else {
					assert.JSONEq(t, tt.raw, string(byNumber.ProviderRaw), form)
				}
				if diff := cmp.Diff(summary(byName), summary(byNumber)); diff != "" {
					t.Errorf("%s: names and numbers decode differently (-names +numbers):\n%s", form, diff)
				}
			}
		})
	}
}

// TestIntegerEnumsRealBodies: real recordings with their enums rewritten
// as numbers decode to the same response as the recordings themselves.
func TestIntegerEnumsRealBodies(t *testing.T) {
	numbers := strings.NewReplacer(`"finishReason": "STOP"`, `"finishReason": 1`, `"role": "model"`, `"role": 2`)
	t.Run("nonstream-functioncall-no-args", func(t *testing.T) {
		body := readFixture(t, "nonstream-functioncall-no-args", "response.json")
		mutated := []byte(numbers.Replace(string(body)))
		require.NotEqual(t, body, mutated, "the recording has enums to rewrite")
		want, err := decodeWhole(t, body)
		require.NoError(t, err)
		got, err := decodeWhole(t, mutated)
		require.NoError(t, err)
		require.NotNil(t, got)
		assert.Equal(t, canonical.StopToolUse, got.StopReason)
		if diff := cmp.Diff(summary(want), summary(got), cmp.Comparer(sameToolInput)); diff != "" {
			t.Errorf("(-names +numbers):\n%s", diff)
		}
	})
	t.Run("stream-thought-parts", func(t *testing.T) {
		body := readFixture(t, "stream-thought-parts", "response.txt")
		mutated := []byte(numbers.Replace(string(body)))
		require.NotEqual(t, body, mutated)
		evs, _, err := decodeEvents(t, body, nil)
		require.NoError(t, err)
		evs2, _, err := decodeEvents(t, mutated, nil)
		require.NoError(t, err)
		checkInvariants(t, evs2)
		assert.Equal(t, "STOP", final(t, evs2).ProviderStopReason)
		if diff := cmp.Diff(summary(final(t, evs)), summary(final(t, evs2)), cmp.Comparer(sameToolInput)); diff != "" {
			t.Errorf("(-names +numbers):\n%s", diff)
		}
	})
}

// sameToolInput compares tool_use blocks ignoring their (fresh) ids.
func sameToolInput(a, b canonical.ToolUseBlock) bool {
	return a.Name == b.Name && bytes.Equal(a.Input, b.Input)
}

// TestEnumNotANameOrNumber: an enum that is neither is invalid_response.
func TestEnumNotANameOrNumber(t *testing.T) {
	for _, body := range []string{
		`{"candidates":[{"finishReason":{"name":"STOP"},"index":0}]}`,
		`{"candidates":[{"finishReason":1.5,"index":0}]}`,
		`{"promptFeedback":{"blockReason":true}}`,
		`{"candidates":[{"finishReason":"STOP","index":0,"safetyRatings":[{"category":[9],"probability":1}]}]}`,
	} {
		_, err := decodeWhole(t, []byte(body))
		assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%s: %v", body, err)
		_, _, err = decodeEvents(t, []byte("data: "+body+"\r\n\r\n"), nil)
		assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "stream %s: %v", body, err)
	}
	var fr finishReason
	assert.NoError(t, json.Unmarshal([]byte(`null`), &fr))
	assert.Equal(t, finishReason(""), fr)
}
