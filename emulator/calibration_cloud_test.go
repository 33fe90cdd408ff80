package emulator_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// The cloud platforms in the calibration: a recording made on Vertex AI,
// Azure OpenAI or Bedrock is replayed through the emulator's route for
// that platform (the recorded path and query, the platform's credential
// header, the body as the platform wants it), so what the platform adds
// to the vendor's stream — Azure's filter chunks, Vertex's envelope,
// Bedrock's binary frames — is held to the real traffic too.

// platformOf names the cloud platform a recording's URL was sent to, or
// "" for a vendor's own API.
func platformOf(r *recordedStream) string {
	if r.url == nil {
		return ""
	}
	switch host := r.url.Hostname(); {
	case strings.HasSuffix(host, "aiplatform.googleapis.com"):
		return "vertex"
	case strings.HasSuffix(host, ".openai.azure.com"):
		return "azure"
	case strings.HasPrefix(host, "bedrock-runtime."):
		return "bedrock"
	}
	return ""
}

// platformCall is the recorded request sent to the emulator's route for
// the platform the recording was made on; ok is false for a vendor's API.
func platformCall(t *testing.T, api string, r *recordedStream, req map[string]any) (c call, ok bool) {
	t.Helper()
	platform := platformOf(r)
	if platform == "" {
		return call{}, false
	}
	path := r.url.EscapedPath()
	if r.url.RawQuery != "" {
		path += "?" + r.url.RawQuery
	}
	header := map[string]string{"Authorization": "Bearer " + testKey}
	switch platform {
	case "vertex":
		if api == "anthropic" {
			req["stream"] = true // streamRawPredict: the body says so too
		}
	case "azure":
		header = map[string]string{"Api-Key": testKey}
		req["stream"] = true
		if api == "openai-chat" {
			if _, ok := req["stream_options"]; !ok && hasUsage(r.stream) {
				req["stream_options"] = map[string]any{"include_usage": true}
			}
		}
	}
	body, err := json.Marshal(req)
	require.NoError(t, err)
	return call{path: path, body: string(body), header: header}, true
}

// parseBody parses a streamed answer: Bedrock's binary event stream, or
// server-sent events.
func parseBody(t *testing.T, api, body string) *stream {
	t.Helper()
	if api == "bedrock-anthropic" {
		return parseEventStream(t, body)
	}
	return parseStream(t, api, body, false)
}

// parseEventStream decodes a Bedrock InvokeModelWithResponseStream body
// with the AWS SDK's decoder: each chunk frame's base64 bytes are one
// Messages event, compared as the Anthropic stream it carries; an
// exception frame is an event of its own kind. Framing is what the
// frames hold besides: the "p" padding, the invocation metrics.
func parseEventStream(t *testing.T, body string) *stream {
	t.Helper()
	s := &stream{api: "anthropic"}
	dec := eventstream.NewDecoder()
	rd := strings.NewReader(body)
	for {
		msg, err := dec.Decode(rd, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "event-stream frame %d", len(s.events))
		header := func(name string) string {
			v, _ := msg.Headers.Get(name).(eventstream.StringValue)
			return string(v)
		}
		if header(":message-type") == "exception" {
			s.events = append(s.events, sseEvent{name: "exception", data: `{"type":"exception:` + header(":exception-type") + `"}`})
			continue
		}
		require.Equal(t, "chunk", header(":event-type"))
		var chunk struct {
			Bytes string  `json:"bytes"`
			P     *string `json:"p"`
		}
		require.NoError(t, json.Unmarshal(msg.Payload, &chunk))
		data, err := base64.StdEncoding.DecodeString(chunk.Bytes)
		require.NoError(t, err)
		if chunk.P != nil {
			s.frameFlags = append(s.frameFlags, "p padding")
		}
		if bytes.Contains(data, []byte(`"amazon-bedrock-invocationMetrics"`)) {
			s.frameFlags = append(s.frameFlags, "invocation metrics")
		}
		var head struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal(data, &head))
		s.events = append(s.events, sseEvent{name: head.Type, data: string(data)})
	}
	return s
}

// platformAnswers are the declared differences between each non-streamed
// platform recording's JSON members and the emulator's answer to the same
// request on the same route ("-path": only the recording has it, "+path":
// only the emulator; a declared path covers the members under it), each
// with its reason.
var platformAnswers = map[string]map[string]string{
	"anthropic/vertex-nonstream-text-and-tool-use": {
		"+/stop_details":         whyClaude2026,
		"+/usage/cache_creation": whyClaude2026,
		"+/usage/inference_geo":  whyClaude2026,
		"+/usage/service_tier":   whyClaude2026,
	},
	"bedrock-anthropic/bedrock-invoke-nonstream-tool-use": {
		"+/stop_details":       "recorded in 2026-03; Bedrock's answer of 2026-07 (bedrock-invoke-nonstream-text-token-headers) has stop_details, as the emulator does",
		"+/usage/service_tier": "recorded in 2026-03; Bedrock's answer of 2026-07 has service_tier, as the emulator does",
	},
	"bedrock-anthropic/bedrock-invoke-nonstream-text-token-headers": {
		"-/usage/output_tokens_details": "Claude Opus 4.8 counts its thinking tokens apart; the emulator's Reply has no thinking-token count for Claude",
	},
	"gemini/vertex-nonstream-functioncall": {
		"-/candidates[]/avgLogprobs":              whyLogprobs,
		"+/candidates[]/index":                    whyIndex,
		"-/usageMetadata/candidatesTokensDetails": whyModality,
	},
	"gemini/vertex-image-filedata-input": {
		"-/candidates[]/avgLogprobs":              whyLogprobs,
		"+/candidates[]/index":                    whyIndex,
		"-/usageMetadata/candidatesTokensDetails": whyModality,
	},
	"openai-chat/azure-nonstream-tool-call": {
		"-/usage/latency_checkpoint": "Azure's latency diagnostics in the usage, which no client reads; the emulator has no latencies to report",
	},
	"openai-responses/azure-nonstream-function-call":                   whyResponses2026,
	"openai-responses/azure-nonstream-reasoning-summary-function-call": whyResponses2026,
}

// Reasons shared by several platform answers.
const (
	whyClaude2026 = "recorded in 2026-03 on Vertex AI with Claude 3.7 Sonnet, before these Messages API members; the emulator's anthropic profile follows the API of 2026-07"
	whyLogprobs   = "Vertex AI's mean log-probability of a candidate, which no client reads; the emulator's Gemini answers carry none"
	whyIndex      = "the Gemini API numbers its candidates and the emulator's Vertex route passes its answer through; Vertex AI leaves index out, and no client needs it for one candidate"
	whyModality   = "Vertex AI's per-modality output count, the total already in candidatesTokenCount; the emulator sends the totals only"
)

// whyResponses2026 are the Responses API members of 2026 that the
// emulator's openai profile does not send, on Azure as on OpenAI.
var whyResponses2026 = map[string]string{
	"-/completed_at":           "a Responses API member of 2026 the openai profile does not send (not Azure's own)",
	"-/frequency_penalty":      "a Responses API member of 2026 the openai profile does not send (not Azure's own)",
	"-/moderation":             "a Responses API member of 2026 the openai profile does not send (not Azure's own)",
	"-/presence_penalty":       "a Responses API member of 2026 the openai profile does not send (not Azure's own)",
	"-/prompt_cache_retention": "a Responses API member of 2026 the openai profile does not send (not Azure's own)",
	"-/reasoning/context":      "a Responses API member of 2026 the openai profile does not send (not Azure's own)",
}

// covers reports whether declared path d covers difference diff: the
// same, or a member under it.
func covers(d, diff string) bool {
	return diff == d || strings.HasPrefix(diff, d+"/") || strings.HasPrefix(diff, d+"[]")
}

// TestEmulatorPlatformAnswers holds the emulator's non-streamed platform
// answers to the real ones: for each recording, the content the platform
// sent is scripted, the recorded request is sent through the platform's
// route, and the two bodies' members (JSON paths, arrays as []) must be
// the same but for the declared differences.
func TestEmulatorPlatformAnswers(t *testing.T) {
	root := fixturesDir(t)
	for key, declared := range platformAnswers {
		t.Run(key, func(t *testing.T) {
			api, name, _ := strings.Cut(key, "/")
			dir := filepath.Join(root, api, name)
			rec := readRecordedAnswer(t, api, dir)
			srv := start(t, emulator.WithReplies(rec.reply))
			c, ok := platformCall(t, api, rec.recordedStream, rec.request)
			require.True(t, ok, "%s is a platform recording", key)
			if api != "gemini" {
				delete(rec.request, "stream")
				body, err := json.Marshal(rec.request)
				require.NoError(t, err)
				c.body = string(body)
			}
			status, _, body := do(t, srv, c)
			require.Equal(t, 200, status, body)
			diffs := listDiff(jsonPaths(t, rec.body), jsonPaths(t, []byte(body)))
			for _, diff := range diffs {
				if !slices.ContainsFunc(slices.Collect(maps.Keys(declared)), func(d string) bool { return covers(d, diff) }) {
					t.Errorf("undeclared difference from the real answer: %s", diff)
				}
			}
			for d, why := range declared {
				if !slices.ContainsFunc(diffs, func(diff string) bool { return covers(d, diff) }) {
					t.Errorf("declared difference %q (%s) no longer occurs: remove it", d, why)
				}
			}
		})
	}
}

// recordedAnswer is a non-streamed recording: its request, its body, and
// the content of that body as a Reply.
type recordedAnswer struct {
	*recordedStream
	body  []byte
	reply emulator.Reply
}

func readRecordedAnswer(t *testing.T, api, dir string) *recordedAnswer {
	t.Helper()
	var meta struct {
		Request struct {
			URI string `json:"uri"`
		} `json:"request"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &meta))
	r := &recordedAnswer{recordedStream: &recordedStream{stream: &stream{api: api}}}
	r.url, err = url.Parse(meta.Request.URI)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "request.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r.request))
	r.body, err = os.ReadFile(filepath.Join(dir, "response.json"))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m))
	call := func(id, name string, input any) emulator.ToolCall {
		in, err := json.Marshal(input)
		require.NoError(t, err)
		if s, ok := input.(string); ok {
			in = json.RawMessage(s)
		}
		return emulator.ToolCall{ID: id, Name: name, Input: in}
	}
	switch api {
	case "anthropic", "bedrock-anthropic":
		for _, c := range anyList(m["content"]) {
			b := c.(map[string]any)
			switch b["type"] {
			case "text":
				r.reply.Text += str(b["text"])
			case "tool_use":
				r.reply.ToolCalls = append(r.reply.ToolCalls, call("", str(b["name"]), b["input"]))
			}
		}
	case "openai-chat":
		msg := anyList(m["choices"])[0].(map[string]any)["message"].(map[string]any)
		r.reply.Text = str(msg["content"])
		for _, tc := range anyList(msg["tool_calls"]) {
			f := tc.(map[string]any)["function"].(map[string]any)
			r.reply.ToolCalls = append(r.reply.ToolCalls, call("", str(f["name"]), str(f["arguments"])))
		}
	case "openai-responses":
		for _, o := range anyList(m["output"]) {
			item := o.(map[string]any)
			switch item["type"] {
			case "reasoning":
				for _, s := range anyList(item["summary"]) {
					r.reply.Thinking += str(s.(map[string]any)["text"])
				}
				r.reply.Signature = "reasoning"
			case "message":
				for _, c := range anyList(item["content"]) {
					r.reply.Text += str(c.(map[string]any)["text"])
				}
			case "function_call":
				r.reply.ToolCalls = append(r.reply.ToolCalls, call("", str(item["name"]), str(item["arguments"])))
			}
		}
	case "gemini":
		if u, ok := m["usageMetadata"].(map[string]any); ok {
			th := intOf(u["thoughtsTokenCount"])
			r.reply.Usage = canonical.TokenUsage{InputTokens: intOf(u["promptTokenCount"]), OutputTokens: intOf(u["candidatesTokenCount"]) + th, ReasoningTokens: th}
		}
		for _, c := range anyList(m["candidates"]) {
			content, _ := c.(map[string]any)["content"].(map[string]any)
			for _, p := range anyList(content["parts"]) {
				part := p.(map[string]any)
				if sig := str(part["thoughtSignature"]); sig != "" {
					r.reply.Signature = sig
				}
				if fc, ok := part["functionCall"].(map[string]any); ok {
					r.reply.ToolCalls = append(r.reply.ToolCalls, call("", str(fc["name"]), fc["args"]))
					continue
				}
				r.reply.Text += str(part["text"])
			}
		}
	}
	return r
}

// jsonPaths lists the members of a JSON document as sorted paths
// (/choices[]/message/content), each once.
func jsonPaths(t *testing.T, body []byte) []string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v), "%s", body)
	set := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				set[prefix+"/"+k] = true
				walk(prefix+"/"+k, e)
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[]", e)
			}
		}
	}
	walk("", v)
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
