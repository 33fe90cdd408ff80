package openaicompat

import (
	"encoding/json"
	"fmt"
	"strings"
)

// persona plays one kind of server in the conformance tests: it renders
// replies in that server's own body shapes, quirks included.
type persona struct {
	kind Kind
	// model is the canonical id the tests call; wire the name the server
	// knows it by.
	model, wire string
	// complete renders a non-streamed body; stream an SSE body. usage is
	// the usage object's JSON, or "" for none.
	complete func(p persona, content string, calls []wireTool, finish, usage string) string
	stream   func(p persona, content string, calls []wireTool, finish, usage string) string
	// notFound is the server's 404 body for an unknown model.
	notFound string
}

// wireTool is one tool call as a server sends it.
type wireTool struct {
	id, name, args string
}

var personas = []persona{vllmPersona, ollamaPersona}

// vllmPersona: OpenAI-shaped bodies with vLLM's extra fields
// (reasoning_content, stop_reason, prompt_logprobs), content null beside
// tool calls, tool-call arguments streamed in fragments, top-level error
// objects ({"object":"error","message",...,"code":404}).
var vllmPersona = persona{
	kind:  KindVLLM,
	model: "vllm:qwen2.5-7b-instruct",
	wire:  "Qwen/Qwen2.5-7B-Instruct",
	complete: func(p persona, content string, calls []wireTool, finish, usage string) string {
		msg := map[string]any{"role": "assistant", "content": nullIfEmpty(content), "reasoning_content": nil, "tool_calls": toolCallsJSON(calls, false)}
		body := map[string]any{
			"id": "chatcmpl-9a1b2c3d4e", "object": "chat.completion", "created": 1767225600, "model": p.wire,
			"choices":         []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish, "stop_reason": nil}},
			"prompt_logprobs": nil,
		}
		if usage != "" {
			body["usage"] = json.RawMessage(usage)
		}
		return mustJSON(body)
	},
	stream: func(p persona, content string, calls []wireTool, finish, usage string) string {
		head := `{"id":"chatcmpl-9a1b2c3d4e","object":"chat.completion.chunk","created":1767225600,"model":"` + p.wire + `","choices":[`
		chunk := func(delta string, fin string) string {
			f := "null"
			if fin != "" {
				f = `"` + fin + `"`
			}
			return head + `{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + `}]}`
		}
		var out []string
		out = append(out, chunk(`{"role":"assistant","content":""}`, ""))
		for _, piece := range split(content, 3) {
			out = append(out, chunk(`{"content":`+mustJSON(piece)+`}`, ""))
		}
		for i, c := range calls {
			out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"id":%q,"type":"function","index":%d,"function":{"name":%q,"arguments":""}}]}`, c.id, i, c.name), ""))
			for _, piece := range split(c.args, 4) {
				out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, mustJSON(piece)), ""))
			}
		}
		out = append(out, chunk(`{"content":""}`, finish))
		if usage != "" {
			out = append(out, head+`],"usage":`+usage+`}`)
		}
		return sse(out...)
	},
	notFound: `{"object":"error","message":"The model ` + "`qwen`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
}

// ollamaPersona: Ollama's OpenAI shim — system_fingerprint fp_ollama,
// content "" beside tool calls, each tool call streamed whole in one
// chunk, and finish_reason "stop" even when the turn calls tools.
var ollamaPersona = persona{
	kind:  KindOllama,
	model: "ollama:qwen3",
	wire:  "qwen3",
	complete: func(p persona, content string, calls []wireTool, finish, usage string) string {
		msg := map[string]any{"role": "assistant", "content": content}
		if len(calls) > 0 {
			msg["tool_calls"] = toolCallsJSON(calls, true)
		}
		body := map[string]any{
			"id": "chatcmpl-417", "object": "chat.completion", "created": 1767225600, "model": p.wire,
			"system_fingerprint": "fp_ollama",
			"choices":            []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		}
		if usage != "" {
			body["usage"] = json.RawMessage(usage)
		}
		return mustJSON(body)
	},
	stream: func(p persona, content string, calls []wireTool, finish, usage string) string {
		head := `{"id":"chatcmpl-417","object":"chat.completion.chunk","created":1767225600,"model":"` + p.wire + `","system_fingerprint":"fp_ollama","choices":[`
		chunk := func(delta string, fin string) string {
			f := "null"
			if fin != "" {
				f = `"` + fin + `"`
			}
			return head + `{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
		}
		var out []string
		for _, piece := range split(content, 3) {
			out = append(out, chunk(`{"role":"assistant","content":`+mustJSON(piece)+`}`, ""))
		}
		if len(calls) > 0 {
			out = append(out, chunk(`{"role":"assistant","content":"","tool_calls":`+mustJSON(toolCallsJSON(calls, true))+`}`, ""))
		}
		out = append(out, chunk(`{"role":"assistant","content":""}`, finish))
		if usage != "" {
			out = append(out, head+`],"usage":`+usage+`}`)
		}
		return sse(out...)
	},
	notFound: `{"error":{"message":"model \"qwen3\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`,
}

func toolCallsJSON(calls []wireTool, withIndex bool) []any {
	out := []any{}
	for i, c := range calls {
		tc := map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}}
		if withIndex {
			tc["index"] = i
		}
		out = append(out, tc)
	}
	return out
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// split cuts s into n pieces of about equal length (none when s is "").
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	size := (len(s) + n - 1) / n
	var out []string
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

// finishFor is the finish_reason a persona sends for a turn.
func (p persona) finishFor(calls []wireTool) string {
	if len(calls) > 0 && p.kind != KindOllama {
		return "tool_calls"
	}
	return "stop"
}

// body renders a successful reply in the persona's non-streamed or
// streamed form.
func (p persona) body(stream bool, content string, calls []wireTool, usage string) string {
	if stream {
		return p.stream(p, content, calls, p.finishFor(calls), usage)
	}
	return p.complete(p, content, calls, p.finishFor(calls), usage)
}

func (p persona) String() string { return strings.ToUpper(string(p.kind)) }
