package providers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
)

func TestEstimateTokensMethod(t *testing.T) {
	// Hand-computed with the generic profile (an ollama model has no
	// calibrated one): bytes/4 text, 3 per request, 4 per message, 1 per
	// block, tools 12 + 7 each + 3 per property, schemas counted as
	// rendered (names, types, descriptions; not the root object's type).
	req := &canonical.Request{
		Model:        "ollama:qwen3",
		SystemPrompt: strings.Repeat("s", 40), // 40 bytes
		Messages: []canonical.Message{
			{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: strings.Repeat("u", 81)}}}, // 81
			{Role: canonical.RoleAssistant, Content: canonical.Blocks{
				canonical.ToolUseBlock{ID: "tu_1", Name: "read", Input: json.RawMessage(`{ "p" : 1 }`)}, // "read" + {"p":1} = 11
			}},
		},
		// "read" + "path" + "string" + "file path" = 23
		Tools: []canonical.ToolDefinition{{Name: "read", InputSchema: json.RawMessage(
			`{"type": "object", "properties": {"path": {"type": "string", "description": "file path"}}}`)}},
	}
	// fixed: 3 + 4 (system) + 2×4 (messages) + 2×1 (blocks) + 12 + 7 + 3 = 39
	// text: (40 + 81 + 11 + 23) / 4 = 38.75 → 77.75 → 78
	assert.Equal(t, 78, estimate(t, req))
}

func TestEstimateTokensRenderedSchema(t *testing.T) {
	// OpenAI profile. Counted as text: "pick", "x", then per property
	// its name, type and enum JSON, recursing through items and $defs
	// (whose names count too); the root object's type does not count.
	//   pick 4 + x 1 + color 5 + string 6 + ["red","blue"] 14
	//   + items 5 + array 5 + A 1 + object 6 + n 1 + integer 7 = 55 bytes
	// fixed: 3 (request) + 12 (tools) + 7 (tool) + 3×3 (properties) = 31
	// 31 + 55/4 = 44.75 → 45 (a model whose tokenizer is unknown, so
	// that text counts at 4 bytes per token)
	req := &canonical.Request{Model: "openai:custom-model", Tools: []canonical.ToolDefinition{{
		Name: "pick", Description: "x",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {
			"color": {"type": "string", "enum": ["red", "blue"]},
			"items": {"type": "array", "items": {"$ref": "#/$defs/A"}}},
			"$defs": {"A": {"type": "object", "properties": {"n": {"type": "integer"}}}}}`),
	}}}
	assert.Equal(t, 45, estimate(t, req))
}

func TestEstimateTokensWhitespaceRuns(t *testing.T) {
	// "a", a run of 10 spaces counted as 4 bytes, "b": 6 bytes at 3.5 per
	// token = 1.71, plus Anthropic's 8 + 3 + 1 framing → 13.71 → 14.
	req := &canonical.Request{Model: "anthropic:claude-haiku-4-5", Messages: []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "a          b"}}},
	}}
	assert.Equal(t, 14, estimate(t, req))
}

func TestEstimateTokensNonASCII(t *testing.T) {
	// 12 CJK runes (36 bytes) at 1.5 runes per token = 8, plus 3 + 4 + 1
	// framing of the generic profile.
	req := &canonical.Request{Model: "vllm:x", Messages: []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "日本語のテキストですよね"}}},
	}}
	assert.Equal(t, 16, estimate(t, req))
}

func TestEstimateTokensImages(t *testing.T) {
	// A real 50×50 PNG header (the first bytes of the fixture image).
	png50 := "iVBORw0KGgoAAAANSUhEUgAAADIAAAAyCAIAAACRXR/mAAAK+0lEQVR4nJSZa48cR9XH"
	img := func(kind, data, mt string) *canonical.Request {
		return &canonical.Request{Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{
			canonical.ImageBlock{Source: canonical.ImageSource{Kind: kind, Data: data}, MediaType: mt},
		}}}}
	}
	for _, tc := range []struct {
		name string
		e    string // the provider whose estimator is used
		req  *canonical.Request
		want int
	}{
		// framing is PerRequest + PerMessage + PerBlock of each profile.
		{"anthropic 50x50 is 4 tokens", "anthropic", img("base64", png50, "image/png"), 8 + 3 + 1 + 4},
		{"openai 50x50 is one tile", "openai", img("base64", png50, "image/png"), 3 + 4 + 1 + 255},
		{"gemini 50x50 is one tile", "gemini", img("base64", png50, "image/png"), 6 + 1 + 0 + 258},
		{"data URL", "gemini", img("base64", "data:image/png;base64,"+png50, ""), 6 + 1 + 258},
		// Unknown sizes are costed as 1024×768: 786432/750 = 1048.6 → 1049.
		{"URL is unknown size", "anthropic", img("url", "https://example.com/a.png", "image/png"), 8 + 3 + 1 + 1049},
		{"garbage base64 is unknown size", "openai", img("base64", "!!!not base64", "image/png"), 3 + 4 + 1 + 765},
		{"unsupported type is unknown size", "gemini", img("base64", png50, "image/webp"), 6 + 1 + 2*258},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Model = tc.e + ":x"
			assert.Equal(t, tc.want, estimate(t, tc.req))
		})
	}
}

func TestEstimateTokensNil(t *testing.T) {
	for _, typ := range []string{"anthropic", "openai", "gemini", "openaicompat"} {
		assert.Equal(t, 0, open(t, typ).EstimateInputTokens(nil), typ)
	}
}

// open builds the built-in adapter of type typ with a fake key, no
// network.
func open(t *testing.T, typ string) adapters.Adapter {
	t.Helper()
	cfg := adapters.Config{Name: typ, APIKey: "sk-test-FAKE"}
	if typ == "openaicompat" {
		cfg.BaseURL = "http://127.0.0.1:1"
	}
	a, err := providers.Factories()[typ](cfg)
	require.NoError(t, err)
	return a
}

// estimate is the estimate of the adapter serving req.Model's provider:
// Anthropic, OpenAI or Gemini, else an OpenAI-compatible server.
func estimate(t *testing.T, req *canonical.Request) int {
	t.Helper()
	typ := canonical.ProviderOf(req.Model)
	switch typ {
	case "anthropic", "openai", "gemini":
	default:
		typ = "openaicompat"
	}
	return open(t, typ).EstimateInputTokens(req)
}

// requestFromFixture decodes a recorded provider request loosely into a
// canonical.Request, enough for estimation: text, images, tool calls and
// results, tools, system prompt and the thinking switch. It is test-only
// and ignores everything the estimator does not read.
func requestFromFixture(t *testing.T, api string, raw []byte) *canonical.Request {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	req := &canonical.Request{}
	switch api {
	case "anthropic":
		req.SystemPrompt = joinText(m["system"], "text")
		for _, msg := range list(m["messages"]) {
			mm := obj(msg)
			req.Messages = append(req.Messages, canonical.Message{Role: canonical.Role(str(mm["role"])), Content: anthropicBlocks(mm["content"])})
		}
		for _, tool := range list(m["tools"]) {
			tm := obj(tool)
			if tm["input_schema"] == nil {
				continue // server tools have no canonical form
			}
			req.Tools = append(req.Tools, canonical.ToolDefinition{Name: str(tm["name"]), Description: str(tm["description"]), InputSchema: rawJSON(tm["input_schema"])})
		}
		if m["thinking"] != nil {
			req.Thinking = &canonical.ThinkingConfig{}
		}
	case "openai-chat":
		for _, msg := range list(m["messages"]) {
			mm := obj(msg)
			var content canonical.Blocks
			if s, ok := mm["content"].(string); ok {
				content = append(content, canonical.TextBlock{Text: s})
			}
			for _, part := range list(mm["content"]) {
				pm := obj(part)
				switch str(pm["type"]) {
				case "text":
					content = append(content, canonical.TextBlock{Text: str(pm["text"])})
				case "image_url":
					content = append(content, imageFromURL(str(obj(pm["image_url"])["url"])))
				}
			}
			for _, tc := range list(mm["tool_calls"]) {
				fn := obj(obj(tc)["function"])
				content = append(content, canonical.ToolUseBlock{Name: str(fn["name"]), Input: json.RawMessage(str(fn["arguments"]))})
			}
			role := canonical.Role(str(mm["role"]))
			if role == canonical.RoleTool {
				content = canonical.Blocks{canonical.ToolResultBlock{Content: content}}
			}
			req.Messages = append(req.Messages, canonical.Message{Role: role, Content: content})
		}
		for _, tool := range list(m["tools"]) {
			fn := obj(obj(tool)["function"])
			req.Tools = append(req.Tools, canonical.ToolDefinition{Name: str(fn["name"]), Description: str(fn["description"]), InputSchema: rawJSON(fn["parameters"])})
		}
		if m["reasoning_effort"] != nil {
			req.Thinking = &canonical.ThinkingConfig{}
		}
	case "openai-responses":
		req.SystemPrompt = str(m["instructions"])
		for _, item := range list(m["input"]) {
			im := obj(item)
			var content canonical.Blocks
			if s, ok := im["content"].(string); ok {
				content = append(content, canonical.TextBlock{Text: s})
			}
			for _, part := range list(im["content"]) {
				pm := obj(part)
				switch str(pm["type"]) {
				case "input_text", "output_text":
					content = append(content, canonical.TextBlock{Text: str(pm["text"])})
				case "input_image":
					content = append(content, imageFromURL(str(pm["image_url"])))
				}
			}
			req.Messages = append(req.Messages, canonical.Message{Role: canonical.Role(str(im["role"])), Content: content})
		}
		for _, tool := range list(m["tools"]) {
			tm := obj(tool)
			req.Tools = append(req.Tools, canonical.ToolDefinition{Name: str(tm["name"]), Description: str(tm["description"]), InputSchema: rawJSON(tm["parameters"])})
		}
		if m["reasoning"] != nil {
			req.Thinking = &canonical.ThinkingConfig{}
		}
	case "gemini":
		if si := obj(m["systemInstruction"]); si != nil {
			req.SystemPrompt = joinText(si["parts"], "text")
		}
		for _, c := range list(m["contents"]) {
			cm := obj(c)
			var content canonical.Blocks
			for _, part := range list(cm["parts"]) {
				pm := obj(part)
				switch {
				case pm["text"] != nil:
					content = append(content, canonical.TextBlock{Text: str(pm["text"])})
				case pm["inlineData"] != nil:
					d := obj(pm["inlineData"])
					content = append(content, canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: str(d["data"])}, MediaType: str(d["mimeType"])})
				case pm["fileData"] != nil:
					d := obj(pm["fileData"])
					content = append(content, canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: str(d["file_uri"])}, MediaType: str(d["mime_type"])})
				case pm["functionCall"] != nil:
					fc := obj(pm["functionCall"])
					content = append(content, canonical.ToolUseBlock{Name: str(fc["name"]), Input: rawJSON(fc["args"])})
				case pm["functionResponse"] != nil:
					fr := obj(pm["functionResponse"])
					content = append(content, canonical.ToolResultBlock{Content: canonical.Blocks{canonical.TextBlock{Text: string(rawJSON(fr["response"]))}}})
				}
			}
			req.Messages = append(req.Messages, canonical.Message{Role: canonical.Role(str(cm["role"])), Content: content})
		}
		for _, tool := range list(m["tools"]) {
			for _, fd := range list(obj(tool)["functionDeclarations"]) {
				fm := obj(fd)
				schema := fm["parameters"]
				if schema == nil {
					schema = fm["parameters_json_schema"]
				}
				req.Tools = append(req.Tools, canonical.ToolDefinition{Name: str(fm["name"]), Description: str(fm["description"]), InputSchema: rawJSON(schema)})
			}
		}
		if gc := obj(m["generationConfig"]); gc != nil && gc["thinkingConfig"] != nil {
			req.Thinking = &canonical.ThinkingConfig{}
		}
	default:
		t.Fatalf("unknown api %q", api)
	}
	return req
}

func anthropicBlocks(v any) canonical.Blocks {
	if s, ok := v.(string); ok {
		return canonical.Blocks{canonical.TextBlock{Text: s}}
	}
	var out canonical.Blocks
	for _, b := range list(v) {
		bm := obj(b)
		switch str(bm["type"]) {
		case "text":
			out = append(out, canonical.TextBlock{Text: str(bm["text"])})
		case "thinking":
			out = append(out, canonical.ThinkingBlock{Text: str(bm["thinking"]), Signature: str(bm["signature"])})
		case "redacted_thinking":
			out = append(out, canonical.RedactedThinkingBlock{Data: str(bm["data"])})
		case "tool_use":
			out = append(out, canonical.ToolUseBlock{ID: str(bm["id"]), Name: str(bm["name"]), Input: rawJSON(bm["input"])})
		case "tool_result":
			out = append(out, canonical.ToolResultBlock{ToolUseID: str(bm["tool_use_id"]), Content: anthropicBlocks(bm["content"])})
		case "image":
			src := obj(bm["source"])
			if str(src["type"]) == "base64" {
				out = append(out, canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: str(src["data"])}, MediaType: str(src["media_type"])})
			} else {
				out = append(out, canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: str(src["url"])}})
			}
		}
	}
	return out
}

func imageFromURL(u string) canonical.ImageBlock {
	if strings.HasPrefix(u, "data:") {
		return canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: u}}
	}
	return canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: u}}
}

func joinText(v any, key string) string {
	if s, ok := v.(string); ok {
		return s
	}
	var parts []string
	for _, b := range list(v) {
		parts = append(parts, str(obj(b)[key]))
	}
	return strings.Join(parts, "\n\n")
}

func list(v any) []any         { l, _ := v.([]any); return l }
func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func str(v any) string         { s, _ := v.(string); return s }
func rawJSON(v any) json.RawMessage {
	if v == nil {
		return json.RawMessage("{}")
	}
	b, _ := json.Marshal(v)
	return b
}
