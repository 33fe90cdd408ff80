package openaicompat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// serverFixture is a compatible server's recording and the facts read
// from its bytes by hand (SOURCE.txt says what each shows).
type serverFixture struct {
	name string
	kind Kind
	opts map[string]any
	// facts
	thinkingPrefix string
	thinkingLen    int // bytes of the thinking text; 0: no thinking block
	text           string
	calls          []serverCall
	stop           canonical.StopReason
	providerStop   string
	usage          canonical.TokenUsage
	served         string
	// blocks are the content's block types in order (nil: not checked);
	// details the reasoning_details kept in provider_raw, byte for byte
	// ("" for none; "@file" reads testdata/file).
	blocks  []canonical.BlockType
	details string
	// redacted is the data of the redacted_thinking block, if any: the
	// recording's reasoning.encrypted entry.
	redacted string
	// error recordings
	class canonical.ErrorClass
	code  string
	msg   string
}

type serverCall struct {
	ProviderID, Name, Input string
}

var getWeather = tool("weather", `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)

var serverFixtures = []serverFixture{
	{name: "bedrock-mantle-nonstream-reasoning-field", kind: KindGeneric, opts: map[string]any{"reasoning_fields": []any{"reasoning"}},
		thinkingPrefix: `The user says: "Reply with exactly SAFE."`, thinkingLen: 195, text: "SAFE",
		blocks: []canonical.BlockType{canonical.BlockThinking, canonical.BlockText},
		stop:   canonical.StopEndTurn, providerStop: "stop",
		usage: canonical.TokenUsage{InputTokens: 72, OutputTokens: 56}, served: "openai.gpt-oss-safeguard-20b"},
	{name: "deepseek-stream-reasoning-then-tool-call", kind: KindGeneric, opts: map[string]any{"reasoning_fields": []any{"reasoning_content"}},
		thinkingPrefix: "The user is asking for the weather in San Francisco.", thinkingLen: 191,
		blocks: []canonical.BlockType{canonical.BlockThinking, canonical.BlockToolUse},
		calls:  []serverCall{{"call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather", `{"location":"San Francisco"}`}},
		stop:   canonical.StopToolUse, providerStop: "tool_calls",
		usage: canonical.TokenUsage{InputTokens: 339 - 320, CachedInputTokens: 320, OutputTokens: 83, ReasoningTokens: 39}, served: "deepseek-reasoner"},
	{name: "groq-error-404-model-not-found", kind: KindGeneric,
		class: canonical.ErrInvalidRequest, code: canonical.CodeModelNotFound,
		msg: "The model `llama-3.3-70b-versatlie` does not exist or you do not have access to it."},
	{name: "llamacpp-nonstream-text", kind: KindLlamaCpp,
		thinkingPrefix: `The user says: "Say hi in Portuguese".`, thinkingLen: 134, text: "Olá!",
		stop: canonical.StopEndTurn, providerStop: "stop",
		usage: canonical.TokenUsage{InputTokens: 84, OutputTokens: 47}, served: "openai/gpt-oss-20b"},
	{name: "openrouter-nonstream-leading-whitespace", kind: KindOpenRouter,
		thinkingPrefix: "Simple.", thinkingLen: 7, text: "The capital of France is **Paris**.",
		blocks:  []canonical.BlockType{canonical.BlockThinking, canonical.BlockText},
		details: `[{"type":"reasoning.text","text":"Simple.","format":"unknown","index":0}]`,
		stop:    canonical.StopEndTurn, providerStop: "stop",
		usage: canonical.TokenUsage{InputTokens: 74, OutputTokens: 21, ReasoningTokens: 2}, served: "openai/gpt-oss-120b"},
	{name: "openrouter-stream-reasoning-details-tool-call", kind: KindOpenRouter,
		thinkingPrefix: `The user asked: "What's the weather in Florence, Italy?"`, thinkingLen: 182,
		blocks:   []canonical.BlockType{canonical.BlockThinking, canonical.BlockRedactedThinking, canonical.BlockToolUse},
		details:  "@openrouter-stream-reasoning-details.json",
		redacted: "xtqOzzobQxuQwf0gkR6GjXXcuE0PDswutFF66xawFkpZ44ikgr2ohkmIilDl5sm4Mz775dN8sBR6zp25Zw8hgykyzQFqBYzmFdhnWAXcG9koU+WVetRL9/juCF2TM++QaYs4hLtsap9HwRd2OZvKbRxuy0f66+ocvythg3yQxSNnOZvhrH2grD/mZbS3CAFWcvz/4RlhPvXiWrh0FchzGZu4TNnmnYJconszRW941AqCFnqyabK/vuZZGtt/Xnp+aHr2gEPDKhnsZcp7WMF/xwRLf6cg1Mqs4TocmOAwpyC5FmeglsiDLLRR3LuGYY/3uuUGE18Ys09TH52mTbFyDFQjWEqIZT80HT23tNFlVySqRfyYwWrlKOHi0wjVa2pwlWQYa5E67sQZ3+dQHi+sPVsmf5AKiknRT9PScTcrRydyU37TXZHX8CYd8HqonNQNdLLAjmHzRu0YxG5Yxq1BT0Jtwlc2uT86R2mnTaxPaPzPVG7l4kHcGdgztboDpCIrMM+hkkd3cxuvNlZK1Nu2fVPF5jgodzCY4DPffVu5BItlBi7xAWozzZPXrGiWLe98EFvBomvpR9pjYhZDDa7CPUiCmZsw+1FhD0V/oULz+oop/miA2hadfRyReUsu7TjfkisC4ikmL1RQ3ZzUGiEsf8gRAggC5uzhqrqJCljiJrQEXbe7sVc2Q3yAYJ0SQ1WZw258Xy5pEUbvqjOq6cAY6n6Nyhpp6czm9aXAdx6LcTRFaZAunekALNg9K60cA4Y94gxfK8AsVIsb1053XWnFLNtUd8HpDd7d4LnTzvSUmxds",
		calls:    []serverCall{{"call_51659697", "weather", `{"location":"Florence, Italy"}`}},
		stop:     canonical.StopToolUse, providerStop: "tool_calls",
		usage: canonical.TokenUsage{InputTokens: 366 - 365, CachedInputTokens: 365, OutputTokens: 155, ReasoningTokens: 129}, served: "x-ai/grok-4.1-fast"},
	{name: "together-nonstream-finish-reason-eos", kind: KindGeneric,
		text: " Why don't we ever hear secrets at a OpenTelemetry convention? Because it's an ex-spy place! (I'll show myself out)",
		stop: canonical.StopError, providerStop: "eos", // 004 §8.2: unknown finish reasons are error
		usage: canonical.TokenUsage{InputTokens: 18, OutputTokens: 35}, served: "mistralai/Mixtral-8x7B-Instruct-v0.1"},
	{name: "vllm-crusoe-stream-text-token-ids", kind: KindVLLM, text: "1, 2, 3, 4, 5",
		stop: canonical.StopEndTurn, providerStop: "stop",
		usage: canonical.TokenUsage{InputTokens: 46, OutputTokens: 14}, served: "meta-llama/Llama-3.3-70B-Instruct"},
	{name: "vllm-nonstream-text", kind: KindVLLM,
		text: "Why did the OpenTelemetry metric go to therapy?\n\nBecause it was feeling a little \"trapped\" in its logging function, and wanted to \"release\" its stress.",
		stop: canonical.StopEndTurn, providerStop: "stop",
		usage: canonical.TokenUsage{InputTokens: 43, OutputTokens: 36}, served: "meta-llama/Llama-3.2-1B-Instruct"},
}

// recordingMeta is a recording's meta.json: the status and response
// headers (the content type) the server sent.
type recordingMeta struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"response_headers"`
}

func recordedMeta(t *testing.T, name string) recordingMeta {
	t.Helper()
	var meta recordingMeta
	require.NoError(t, json.Unmarshal(fixture(t, "openai-chat", name, "meta.json"), &meta))
	return meta
}

// recordedBody returns a recording's response as the server sent it:
// SSE (a response.txt, or response.chunks.jsonl framed as "data:" lines
// ended by [DONE]), or the JSON body.
func recordedBody(t *testing.T, name string) (body []byte, streamed bool) {
	dir := filepath.Join(adaptertest.FixturesDir(t), "openai-chat", name)
	if b, err := os.ReadFile(filepath.Join(dir, "response.txt")); err == nil {
		return b, true
	}
	if b, err := os.ReadFile(filepath.Join(dir, "response.chunks.jsonl")); err == nil {
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
				out.WriteString("data: ")
				out.Write(line)
				out.WriteString("\n\n")
			}
		}
		require.NoError(t, sc.Err())
		out.WriteString("data: [DONE]\n\n")
		return out.Bytes(), true
	}
	return fixture(t, "openai-chat", name, "response.json"), false
}

// TestServerRecordings decodes the compatible servers' recordings through
// the adapter configured as each server would be, and holds every
// response to the facts read from the bytes.
func TestServerRecordings(t *testing.T) {
	for _, fx := range serverFixtures {
		t.Run(fx.name, func(t *testing.T) {
			meta := recordedMeta(t, fx.name)
			body, streamed := recordedBody(t, fx.name)
			srv := newStub(t).on(chatRoute, reply{status: meta.Status, header: meta.Headers, body: string(body)})
			cfg := newConfig(fx.kind, srv.URL, newEnv())
			for k, v := range fx.opts {
				cfg.Options[k] = v
			}
			model := string(fx.kind) + ":recorded"
			cfg.Models[model] = adapters.ModelConfig{Capabilities: json.RawMessage(`{"supports_tools":true}`)}
			a := mustNew(t, cfg)
			req := request(model, userMsg("recorded request"))
			if len(fx.calls) > 0 {
				req.Tools = []canonical.ToolDefinition{getWeather}
			}
			ids := adapters.NewToolIDMap()
			req.ToolIDs = ids

			resp, _, err := run(t, a, req, streamed)
			if fx.class != "" {
				ae := adapterError(t, err)
				assert.Equal(t, fx.class, ae.Class)
				assert.Equal(t, fx.code, ae.Code)
				assert.Equal(t, meta.Status, ae.Status)
				assert.Equal(t, fx.msg, ae.Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, fx.stop, resp.StopReason)
			assert.Equal(t, fx.providerStop, resp.ProviderStopReason)
			if diff := cmp.Diff(fx.usage, resp.Usage); diff != "" {
				t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, fx.served, resp.ServedModel)

			var thinking, text string
			var calls []serverCall
			nThinking := 0
			var kinds []canonical.BlockType
			for _, b := range resp.Content {
				kinds = append(kinds, b.Type())
				switch b := b.(type) {
				case canonical.RedactedThinkingBlock:
					assert.Equal(t, fx.redacted, b.Data, "the encrypted entry's data, verbatim")
				case canonical.ThinkingBlock:
					thinking, nThinking = b.Text, nThinking+1
					assert.Empty(t, b.Signature)
				case canonical.TextBlock:
					text += b.Text
				case canonical.ToolUseBlock:
					var in bytes.Buffer
					require.NoError(t, json.Compact(&in, b.Input))
					calls = append(calls, serverCall{ids.Wire(string(fx.kind), b.ID), b.Name, in.String()})
				}
			}
			if fx.blocks != nil {
				assert.Equal(t, fx.blocks, kinds)
			}
			var raw struct {
				ReasoningDetails json.RawMessage `json:"reasoning_details"`
			}
			if len(resp.ProviderRaw) > 0 {
				require.NoError(t, json.Unmarshal(resp.ProviderRaw, &raw))
			}
			want := fx.details
			if name, ok := strings.CutPrefix(want, "@"); ok {
				want = strings.TrimSpace(string(readTestdata(t, name)))
			}
			assert.Equal(t, want, string(raw.ReasoningDetails), "reasoning_details kept byte for byte")
			if fx.thinkingLen == 0 {
				assert.Zero(t, nThinking, "no thinking block")
			} else {
				assert.Equal(t, 1, nThinking)
				assert.True(t, strings.HasPrefix(thinking, fx.thinkingPrefix), "thinking %.80q", thinking)
				assert.Len(t, thinking, fx.thinkingLen)
			}
			assert.Equal(t, fx.text, text)
			if diff := cmp.Diff(fx.calls, calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if !streamed {
				assert.True(t, bytes.Equal(body, resp.RawBody), "the body is kept verbatim")
			}
		})
	}
}

// TestServerRecordingsListed: adaptertest.ServerRecordings lists exactly
// the recordings TestServerRecordings decodes.
func TestServerRecordingsListed(t *testing.T) {
	var tested, listed []string
	for _, fx := range serverFixtures {
		tested = append(tested, "openai-chat/"+fx.name)
	}
	for k := range adaptertest.ServerRecordings {
		listed = append(listed, k)
	}
	slices.Sort(tested)
	slices.Sort(listed)
	if diff := cmp.Diff(tested, listed); diff != "" {
		t.Errorf("ServerRecordings (-tested +listed):\n%s", diff)
	}
}

// TestMutatedServerRecordings: compatible servers' recordings changed in
// one place the adapter cannot understand are invalid_response errors.
func TestMutatedServerRecordings(t *testing.T) {
	tests := []struct {
		name, recording, old, new string
		kind                      Kind
	}{
		{"a streamed tool call without a name", "deepseek-stream-reasoning-then-tool-call", `"name":"weather"`, `"name":""`, KindGeneric},
		{"a body with no choices", "vllm-nonstream-text", `"choices":[`, `"choice":[`, KindVLLM},
		{"a stream chunk that is not JSON", "vllm-crusoe-stream-text-token-ids", `"finish_reason":"stop"`, `"finish_reason":"stop"}}`, KindVLLM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, streamed := recordedBody(t, tt.recording)
			require.Contains(t, string(body), tt.old, "the recording holds what the test changes")
			mutated := strings.Replace(string(body), tt.old, tt.new, 1)
			srv := newStub(t).on(chatRoute, reply{header: recordedMeta(t, tt.recording).Headers, body: mutated})
			cfg := newConfig(tt.kind, srv.URL, newEnv())
			model := string(tt.kind) + ":recorded"
			cfg.Models[model] = adapters.ModelConfig{Capabilities: json.RawMessage(`{"supports_tools":true}`)}
			req := request(model, userMsg("recorded request"))
			req.Tools = []canonical.ToolDefinition{getWeather}
			_, _, err := run(t, mustNew(t, cfg), req, streamed)
			assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%v", err)
		})
	}
}
