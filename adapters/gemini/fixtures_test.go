package gemini

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// TestFixturesCovered makes sure every recorded exchange has a case below.
func TestFixturesCovered(t *testing.T) {
	entries, err := os.ReadDir(fixturesDir(t))
	require.NoError(t, err)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		_, ok := fixtureCases[e.Name()]
		ok = ok || adaptertest.PendingRecordings["gemini/"+e.Name()] != "" || adaptertest.PlatformRecordings["gemini/"+e.Name()] != ""
		assert.True(t, ok, "fixture %s has no test case", e.Name())
	}
}

// fixtureCase is a hand-written expectation for one fixture folder.
type fixtureCase struct {
	model string
	// success
	check func(t *testing.T, resp *canonical.Response, ids *adapters.ToolIDMap)
	// error
	class      canonical.ErrorClass
	code       string
	retryAfter time.Duration
	message    string
}

var fixtureCases = map[string]fixtureCase{
	"error-403-permission-denied": {
		class: canonical.ErrAuth, message: "Method doesn't allow unregistered callers",
	},
	"error-404-model-not-found": {
		class: canonical.ErrInvalidRequest, code: canonical.CodeModelNotFound,
		message: "models/gemini-3.6-flahs is not found",
	},
	"error-429-resource-exhausted-retryinfo": {
		class: canonical.ErrRateLimit, retryAfter: 34400 * time.Millisecond,
		message: "You exceeded your current quota",
	},
	"nonstream-functioncall-no-args": {
		model: "gemini:gemini-2.0-flash",
		check: func(t *testing.T, r *canonical.Response, ids *adapters.ToolIDMap) {
			require.Len(t, r.Content, 1)
			tu, ok := r.Content[0].(canonical.ToolUseBlock)
			require.True(t, ok, "content[0] is %T", r.Content[0])
			assert.Equal(t, "get_user_country", tu.Name)
			assert.JSONEq(t, `{}`, string(tu.Input))
			assert.True(t, canonical.IsToolUseID(tu.ID), "canonical id %q", tu.ID)
			assert.Equal(t, canonical.StopToolUse, r.StopReason)
			assert.Equal(t, "STOP", r.ProviderStopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 33, OutputTokens: 5}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
			assert.Empty(t, r.ProviderRaw, "no signatures in this response")
			assert.Equal(t, "gemini-2.0-flash", r.ServedModel)
			assert.Equal(t, "gemini:gemini-2.0-flash", r.Model)
		},
	},
	"nonstream-thinking-gemini3": {
		model: testModel3,
		check: func(t *testing.T, r *canonical.Response, _ *adapters.ToolIDMap) {
			require.Len(t, r.Content, 2)
			th, ok := r.Content[0].(canonical.ThinkingBlock)
			require.True(t, ok, "content[0] is %T", r.Content[0])
			assert.True(t, strings.HasPrefix(th.Text, "**A Safe Street-Crossing Guide: My Thought Process**"))
			assert.Equal(t, 2238, utf8.RuneCountInString(th.Text), "characters of the thought part")
			assert.Empty(t, th.Signature, "the thought part itself is unsigned")
			tx, ok := r.Content[1].(canonical.TextBlock)
			require.True(t, ok, "content[1] is %T", r.Content[1])
			assert.True(t, strings.HasPrefix(tx.Text, "Crossing the street safely is a fundamental skill"))
			assert.True(t, strings.HasSuffix(tx.Text, "rather than looking for you."))
			assert.Equal(t, canonical.StopEndTurn, r.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 29, OutputTokens: 736 + 1001, ReasoningTokens: 1001}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
			raw := parseRaw(r.ProviderRaw)
			require.Len(t, raw.Signatures, 1)
			sig := raw.Signatures["1"]
			assert.True(t, strings.HasPrefix(sig, "EqoeCqceAdHtim+cXhv3WM3A"), "signature of the answer text part: %.24s", sig)
			assert.True(t, strings.HasSuffix(sig, "snfFk5ItIF/D"))
		},
	},
	"stream-functioncall-thought-signature": {
		model: testModel3,
		check: func(t *testing.T, r *canonical.Response, _ *adapters.ToolIDMap) {
			require.Len(t, r.Content, 1, "the empty trailing text part adds nothing")
			tu := r.Content[0].(canonical.ToolUseBlock)
			assert.Equal(t, "get_country", tu.Name)
			assert.JSONEq(t, `{}`, string(tu.Input))
			assert.Equal(t, canonical.StopToolUse, r.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 29, OutputTokens: 10 + 202, ReasoningTokens: 202}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
			sig := parseRaw(r.ProviderRaw).Signatures["0"]
			assert.True(t, strings.HasPrefix(sig, "EpwICpkIAXLI2nxlU6gsWZaZ"), "signature on the functionCall part: %.24s", sig)
			assert.True(t, strings.HasSuffix(sig, "AXOk15QuFyU="))
			assert.Len(t, sig, 1408)
		},
	},
	"stream-functioncall-with-id-thinking": {
		model: testModel3,
		check: func(t *testing.T, r *canonical.Response, ids *adapters.ToolIDMap) {
			require.Len(t, r.Content, 1)
			tu := r.Content[0].(canonical.ToolUseBlock)
			assert.Equal(t, "weather", tu.Name)
			assert.JSONEq(t, `{"location": "Florence, Italy"}`, string(tu.Input))
			assert.Equal(t, "9d532gc9", ids.Wire("gemini", tu.ID), "Gemini's id is kept in the tool-id map")
			assert.Equal(t, tu.ID, ids.Canonical("gemini", "9d532gc9"))
			assert.Equal(t, canonical.StopToolUse, r.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 65, OutputTokens: 16 + 94, ReasoningTokens: 94}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, testModel3, r.Model, "the requested model")
			assert.Equal(t, "gemini-3.1-pro-preview", r.ServedModel, "the model that served it")
			sig := parseRaw(r.ProviderRaw).Signatures["0"]
			assert.True(t, strings.HasPrefix(sig, "Eu0DCuoDAb4+9vvdbiOpT/hd"))
			assert.True(t, strings.HasSuffix(sig, "Dm/vF6Otiw=="))
		},
	},
	"stream-image-inlinedata-input": {
		model: testModel,
		check: func(t *testing.T, r *canonical.Response, _ *adapters.ToolIDMap) {
			require.Len(t, r.Content, 1, "eight text chunks form one block")
			tx := r.Content[0].(canonical.TextBlock)
			assert.True(t, strings.HasPrefix(tx.Text, "Of course! Here are a few ways to describe the image"))
			assert.True(t, strings.HasSuffix(tx.Text, "sparkles, and a long shadow or trail."))
			assert.Len(t, tx.Text, 840)
			assert.Equal(t, canonical.StopEndTurn, r.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 272, OutputTokens: 200 + 1114, ReasoningTokens: 1114}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
		},
	},
	"stream-text-after-function-response": {
		model: testModel3,
		check: func(t *testing.T, r *canonical.Response, _ *adapters.ToolIDMap) {
			require.Len(t, r.Content, 1)
			if diff := cmp.Diff(canonical.TextBlock{Text: "The capital of Mexico is Mexico City."}, r.Content[0]); diff != "" {
				t.Errorf("r.Content[0] mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, canonical.StopEndTurn, r.StopReason)
			// promptTokenCount is 55 until the last chunk, which says 257:
			// the last usage wins, nothing is summed.
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 257, OutputTokens: 8}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
		},
	},
	"stream-thought-parts": {
		model: testModel,
		check: func(t *testing.T, r *canonical.Response, _ *adapters.ToolIDMap) {
			require.Len(t, r.Content, 2, "four thought parts form one block, nineteen text parts another")
			th := r.Content[0].(canonical.ThinkingBlock)
			assert.True(t, strings.HasPrefix(th.Text, "**Clarifying User Goals**"))
			assert.True(t, strings.HasSuffix(th.Text, "specific circumstances or locations.\n\n\n"))
			assert.Len(t, th.Text, 1575)
			assert.Empty(t, th.Signature)
			tx := r.Content[1].(canonical.TextBlock)
			assert.True(t, strings.HasPrefix(tx.Text, "This is a great question! Safely crossing the street"))
			assert.True(t, strings.HasSuffix(tx.Text, "Always assume a driver might not see you."))
			assert.Len(t, tx.Text, 1938)
			assert.Equal(t, canonical.StopEndTurn, r.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 34, OutputTokens: 469 + 787, ReasoningTokens: 787}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
			raw := parseRaw(r.ProviderRaw)
			require.Len(t, raw.Signatures, 1)
			sig := raw.Signatures["1"]
			assert.True(t, strings.HasPrefix(sig, "CiIB0e2Kb6Syj1a961EfbWv4"), "signature of the first answer part: %.24s", sig)
			assert.Len(t, sig, 6152)
		},
	},
	"vertex-image-filedata-input": {
		model: "gemini:gemini-2.0-flash",
		check: func(t *testing.T, r *canonical.Response, _ *adapters.ToolIDMap) {
			require.Len(t, r.Content, 1)
			tx := r.Content[0].(canonical.TextBlock)
			assert.True(t, strings.HasPrefix(tx.Text, "The URL's main content is the landing page of Wikipedia"))
			assert.Equal(t, canonical.StopEndTurn, r.StopReason)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 2589, OutputTokens: 33}, r.Usage); diff != "" {
				t.Errorf("r.Usage mismatch (-want +got):\n%s", diff)
			}
		},
	},
}

// TestFixtures serves every recorded response through an httptest server
// and checks the canonical result against the expectations above.
func TestFixtures(t *testing.T) {
	dir := fixturesDir(t)
	for name, fc := range fixtureCases {
		t.Run(name, func(t *testing.T) {
			status := fixtureStatus(t, name)
			if fc.check == nil {
				body := readFixture(t, name, "response.json")
				e := newEnvWith(t, func(c *adapters.Config) { c.MaxRetries = 0 }, jsonReply(status, body))
				_, err := e.a.Complete(context.Background(), userRequest(testModel, "hello"))
				var ae *canonical.AdapterError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, fc.class, ae.Class)
				assert.Equal(t, fc.code, ae.Code)
				assert.Equal(t, status, ae.Status)
				assert.Equal(t, fc.retryAfter, ae.RetryAfter)
				assert.Contains(t, ae.Message, fc.message)
				assert.Equal(t, "gemini", ae.Provider)
				return
			}
			ids := adapters.NewToolIDMap()
			req := userRequest(fc.model, "hello")
			req.ToolIDs = ids
			var resp *canonical.Response
			if _, err := os.Stat(dir + "/" + name + "/response.txt"); err == nil {
				e := newEnv(t, sseReply(readFixture(t, name, "response.txt")))
				evs, err := adaptertest.Collect(e.a.Stream(context.Background(), req))
				require.NoError(t, err)
				checkInvariants(t, evs)
				resp = final(t, evs)
				assert.Contains(t, e.Requests()[0].url, ":streamGenerateContent?alt=sse")
			} else {
				e := newEnv(t, jsonReply(status, readFixture(t, name, "response.json")))
				var err error
				resp, err = e.a.Complete(context.Background(), req)
				require.NoError(t, err)
				assert.JSONEq(t, string(readFixture(t, name, "response.json")), string(resp.RawBody))
				assert.True(t, strings.HasSuffix(e.Requests()[0].url, ":generateContent"))
			}
			assert.Equal(t, "gemini", resp.Provider)
			assert.Equal(t, req.RequestID, resp.RequestID)
			fc.check(t, resp, ids)
		})
	}
}

// fixtureRequest decodes a fixture's recorded request body.
func fixtureRequest(t *testing.T, name string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(readFixture(t, name, "request.json"), &m))
	return m
}

// buildBody encodes req the way Complete and Stream do and decodes it.
func buildBody(t *testing.T, a *driver.Adapter, req *canonical.Request) map[string]any {
	t.Helper()
	w, err := a.Encode(req, false)
	require.NoError(t, err)
	return wireBody(t, w.Body)
}

func testAdapter(t *testing.T) (*driver.Adapter, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	a, err := New(adapters.Config{APIKey: testAPIKey, Logger: slogJSON(logs)})
	require.NoError(t, err)
	return a, logs
}

// TestFixtureRequests rebuilds the important parts of recorded requests
// from canonical input.
func TestFixtureRequests(t *testing.T) {
	a, _ := testAdapter(t)

	t.Run("stream-image-inlinedata-input", func(t *testing.T) {
		want := fixtureRequest(t, "stream-image-inlinedata-input")
		img := path(t, want, "contents", 0, "parts", 1, "inlineData", "data").(string)
		req := &canonical.Request{Model: testModel, SystemPrompt: "You are a helpful assistant", MaxOutputTokens: 4000,
			Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{
				canonical.TextBlock{Text: "Describe the image briefly in English."},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: img}, MediaType: "image/png"},
			}}}}
		got := buildBody(t, a, req)
		if diff := cmp.Diff(want["contents"], got["contents"]); diff != "" {
			t.Errorf("got.contents mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(path(t, want, "systemInstruction", "parts"), path(t, got, "systemInstruction", "parts")); diff != "" {
			t.Errorf("got.systemInstruction.parts mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want["generationConfig"], got["generationConfig"]); diff != "" {
			t.Errorf("got.generationConfig mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("stream-functioncall-with-id-thinking", func(t *testing.T) {
		want := fixtureRequest(t, "stream-functioncall-with-id-thinking")
		req := &canonical.Request{Model: testModel3, SystemPrompt: "You are a helpful assistant",
			Messages:   []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "What's the weather in Florence, Italy?"}}}},
			Tools:      []canonical.ToolDefinition{{Name: "weather", Description: "Get weather information for a location", InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"],"additionalProperties":false}`)}},
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
			Thinking:   &canonical.ThinkingConfig{Effort: "high"},
		}
		got := buildBody(t, a, req)
		if diff := cmp.Diff(want["contents"], got["contents"]); diff != "" {
			t.Errorf("got.contents mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want["tools"], got["tools"]); diff != "" {
			t.Errorf("the converted schema is exactly what Gemini was sent (-want +got):\n%s", diff)
		}
		sameFields(t, want, got, "toolConfig", "generationConfig")
	})

	t.Run("nonstream-functioncall-no-args", func(t *testing.T) {
		want := fixtureRequest(t, "nonstream-functioncall-no-args")
		req := &canonical.Request{Model: "gemini:gemini-2.0-flash",
			Messages: []canonical.Message{userMsg("What is the largest city in the user country?")},
			Tools: []canonical.ToolDefinition{
				{Name: "get_user_country", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
				{Name: "final_result", Description: "The final response which ends this conversation",
					InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"],"additionalProperties":false}`)},
			},
			ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAny},
		}
		got := buildBody(t, a, req)
		sameFields(t, want, got, "contents", "tools")
		assert.Equal(t, "ANY", path(t, got, "toolConfig", "functionCallingConfig", "mode"))
	})

	t.Run("stream-thought-parts", func(t *testing.T) {
		want := fixtureRequest(t, "stream-thought-parts")
		req := &canonical.Request{Model: testModel, SystemPrompt: "You are a helpful assistant.",
			Messages: []canonical.Message{userMsg("How do I cross the street?")},
			Tools:    []canonical.ToolDefinition{{Name: "dummy", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
			Thinking: &canonical.ThinkingConfig{},
		}
		got := buildBody(t, a, req)
		sameFields(t, want, got, "contents", "tools", "generationConfig")
		if diff := cmp.Diff(path(t, want, "systemInstruction", "parts"), path(t, got, "systemInstruction", "parts")); diff != "" {
			t.Errorf("got.systemInstruction.parts mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("vertex-image-filedata-input", func(t *testing.T) {
		want := fixtureRequest(t, "vertex-image-filedata-input")
		uri := path(t, want, "contents", 0, "parts", 1, "fileData", "file_uri").(string)
		req := &canonical.Request{Model: "gemini:gemini-2.0-flash", Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{
			canonical.TextBlock{Text: "What is the main content of this URL?"},
			canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: uri}, MediaType: "image/png"},
		}}}}
		got := buildBody(t, a, req)
		if diff := cmp.Diff(path(t, want, "contents", 0, "parts", 0), path(t, got, "contents", 0, "parts", 0)); diff != "" {
			t.Errorf("got.contents.0.parts.0 mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, uri, path(t, got, "contents", 0, "parts", 1, "fileData", "fileUri"))
		assert.Equal(t, "image/png", path(t, got, "contents", 0, "parts", 1, "fileData", "mimeType"))
		assert.Equal(t, "user", path(t, got, "contents", 0, "role"))
		assert.Nil(t, got["generationConfig"], "nothing to configure")
	})
}

// sameFields reports each top-level field of the recorded request body
// (want) that the built one (got) does not reproduce exactly.
func sameFields(t *testing.T, want, got map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		if diff := cmp.Diff(want[f], got[f]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f, diff)
		}
	}
}
