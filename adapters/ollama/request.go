package ollama

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// chatRequest is the body of POST /api/chat.
type chatRequest struct {
	Model     string          `json:"model"`
	Messages  []message       `json:"messages"`
	Tools     []tool          `json:"tools,omitempty"`
	Format    json.RawMessage `json:"format,omitempty"`
	Options   *modelOptions   `json:"options,omitempty"`
	Stream    bool            `json:"stream"`
	Think     json.RawMessage `json:"think,omitempty"`
	KeepAlive *string         `json:"keep_alive,omitempty"`
}

// message is one chat message, in requests and responses.
type message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Thinking  string     `json:"thinking,omitempty"`
	Images    []string   `json:"images,omitempty"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
	ToolName  string     `json:"tool_name,omitempty"`
	// ToolCallID is the id of the call a tool message answers, sent only
	// when the server gave the call one (recent servers do).
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// toolCall is one call: Ollama's arguments are a JSON object, and recent
// servers may add an id.
type toolCall struct {
	ID       string       `json:"id,omitempty"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Index     *int            `json:"index,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// tool is one tool definition.
type tool struct {
	Type     string      `json:"type"`
	Function toolDefWire `json:"function"`
}

type toolDefWire struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// modelOptions are the runtime options Ollama takes per request.
type modelOptions struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	NumPredict  int      `json:"num_predict,omitempty"`
	NumCtx      int      `json:"num_ctx,omitempty"`
	Stop        []string `json:"stop,omitempty"`
}

// Encode maps the call to a /api/chat request (see the package doc).
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	req := c.Request
	opts := p.opts.For(c.Model.ID)
	body := chatRequest{
		Model:     c.Model.WireName,
		Stream:    c.Stream,
		Format:    req.OutputSchema,
		KeepAlive: opts.KeepAlive,
	}
	if s := c.SystemText("Ollama's system message carries text only"); s != "" {
		body.Messages = append(body.Messages, message{Role: "system", Content: s})
	}
	names := map[string]string{} // canonical tool_use id → tool name
	for i := range req.Messages {
		m := &req.Messages[i]
		switch m.Role {
		case canonical.RoleSystem:
			continue // in the leading system message
		case canonical.RoleUser:
			body.Messages = append(body.Messages, userMessage(c, m))
		case canonical.RoleAssistant:
			body.Messages = append(body.Messages, assistantMessage(c, m, names))
		case canonical.RoleTool:
			body.Messages = append(body.Messages, toolMessages(c, m, names)...)
		default:
			return nil, driver.InvalidRequest(canonical.CodeInvalidHistory, "messages[%d]: unknown role %q", i, m.Role)
		}
	}
	if len(req.Tools) > 0 && !(req.ToolChoice != nil && req.ToolChoice.Mode == canonical.ToolChoiceNone) {
		for _, t := range req.Tools {
			params := t.InputSchema
			if len(bytes.TrimSpace(params)) == 0 {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			body.Tools = append(body.Tools, tool{Type: "function", Function: toolDefWire{Name: t.Name, Description: t.Description, Parameters: params}})
		}
		if tc := req.ToolChoice; tc != nil && tc.Mode != canonical.ToolChoiceAuto {
			c.Log.Warn("tool_choice cannot be forced on Ollama; sent as auto",
				"adapter", c.Adapter, "request_id", req.RequestID, "tool_choice", string(tc.Mode))
		}
	}
	mo := modelOptions{
		Temperature: req.Temperature, TopP: req.TopP, Seed: req.Seed,
		NumPredict: req.MaxOutputTokens, NumCtx: opts.NumCtx, Stop: req.StopSequences,
	}
	if mo.Temperature != nil || mo.TopP != nil || mo.Seed != nil || mo.NumPredict > 0 || mo.NumCtx > 0 || len(mo.Stop) > 0 {
		body.Options = &mo
	}
	body.Think = think(req.Thinking, c.Caps.SupportsThinking)
	data, err := json.Marshal(body)
	if err != nil {
		return nil, driver.InvalidRequest("", "encoding request: %v", err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if c.Stream {
		h.Set("Accept", "application/x-ndjson")
	} else {
		h.Set("Accept", "application/json")
	}
	return &driver.Request{URL: p.root + "/api/chat", Header: h, Body: data}, nil
}

// think is the think field: the effort when one is asked for, else true;
// false for a thinking model when the request asks for none; absent
// otherwise.
func think(tc *canonical.ThinkingConfig, thinkingModel bool) json.RawMessage {
	switch {
	case tc == nil && thinkingModel:
		return json.RawMessage("false")
	case tc == nil:
		return nil
	}
	switch e := strings.ToLower(tc.Effort); e {
	case "low", "medium", "high":
		return json.RawMessage(`"` + e + `"`)
	}
	return json.RawMessage("true")
}

// userMessage maps a USER message: its text joined, its images listed.
func userMessage(c *driver.Call, m *canonical.Message) message {
	out := message{Role: "user"}
	var texts []string
	for _, b := range m.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case canonical.ImageBlock:
			if data, ok := imageData(b); ok {
				out.Images = append(out.Images, data)
			} else {
				c.Drop(m, b.Type(), "Ollama takes images as base64 data only, never by URL or file reference")
			}
		default:
			c.Drop(m, b.Type(), "Ollama's user message carries text and images only")
		}
	}
	out.Content = strings.Join(texts, "\n\n")
	return out
}

// imageData returns an image's base64 data: a base64 source as it is, a
// data: URL's payload (re-encoded when the URL is not base64).
func imageData(b canonical.ImageBlock) (string, bool) {
	switch b.Source.Kind {
	case canonical.ImageBase64:
		return b.Source.Data, true
	case canonical.ImageURL:
		rest, ok := strings.CutPrefix(b.Source.Data, "data:")
		if !ok {
			return "", false
		}
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok {
			return "", false
		}
		if strings.HasSuffix(meta, ";base64") {
			return payload, true
		}
		return base64.StdEncoding.EncodeToString([]byte(payload)), true
	}
	return "", false
}

// assistantMessage maps an ASSISTANT message, recording the names of its
// tool calls for the results that answer them.
func assistantMessage(c *driver.Call, m *canonical.Message, names map[string]string) message {
	out := message{Role: "assistant"}
	own := m.Metadata.Provider == c.Adapter
	var texts, thoughts []string
	for _, b := range m.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case canonical.ThinkingBlock:
			if !own {
				c.Drop(m, b.Type(), "thinking from another provider is not sent to Ollama (000 §4.3)")
				continue
			}
			if b.Text != "" {
				thoughts = append(thoughts, b.Text)
			}
		case canonical.ToolUseBlock:
			names[b.ID] = b.Name
			args := b.Input
			if t := bytes.TrimSpace(args); len(t) == 0 || t[0] != '{' {
				args = json.RawMessage("{}")
			}
			out.ToolCalls = append(out.ToolCalls, toolCall{ID: wireID(c, b.ID), Function: toolFunction{Name: b.Name, Arguments: args}})
		default:
			c.Drop(m, b.Type(), "Ollama's assistant message carries text, thinking and tool calls only")
		}
	}
	out.Content = strings.Join(texts, "\n\n")
	out.Thinking = strings.Join(thoughts, "\n\n")
	return out
}

// wireID returns the id Ollama gave a call, "" when it gave none (the
// canonical id is then its own wire id in the tool-id map, and is not
// sent: Ollama matches results by tool_name).
func wireID(c *driver.Call, id string) string {
	w := c.Request.ToolIDs.Wire(c.Adapter, id)
	if w == id {
		return ""
	}
	return w
}

// toolMessages maps a TOOL message: one tool message per result, named
// after the call it answers.
func toolMessages(c *driver.Call, m *canonical.Message, names map[string]string) []message {
	var out []message
	for _, b := range m.Content {
		r, ok := b.(canonical.ToolResultBlock)
		if !ok {
			c.Drop(m, b.Type(), "an Ollama tool message carries tool results only")
			continue
		}
		var texts []string
		for _, rb := range r.Content {
			if t, ok := rb.(canonical.TextBlock); ok {
				if t.Text != "" {
					texts = append(texts, t.Text)
				}
				continue
			}
			c.Drop(m, rb.Type(), "an Ollama tool result carries text only")
		}
		text := strings.Join(texts, "\n\n")
		if r.IsError {
			text = "Error: " + text
		}
		out = append(out, message{Role: "tool", Content: text, ToolName: names[r.ToolUseID], ToolCallID: wireID(c, r.ToolUseID)})
	}
	return out
}
