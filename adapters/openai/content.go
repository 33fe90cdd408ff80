package openai

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// This file holds the canonical→wire helpers both dialects share.

// systemText is the request's system text (driver.Call.SystemText);
// non-text blocks in SYSTEM messages are dropped with the
// lossy-projection WARN.
func systemText(c *driver.Call) string {
	return c.SystemText("system messages carry only text")
}

// imageURL returns the URL form of an image: a data URI for inline base64
// data (002: "Data URI in image_url"), the URL itself for a URL source. A
// file_ref cannot be sent: the core resolves workspace files, not adapters.
func imageURL(img canonical.ImageBlock) (string, bool) {
	switch img.Source.Kind {
	case canonical.ImageBase64:
		mt := img.MediaType
		if mt == "" {
			mt = "image/png"
		}
		return "data:" + mt + ";base64," + img.Source.Data, img.Source.Data != ""
	case canonical.ImageURL:
		return img.Source.Data, img.Source.Data != ""
	}
	return "", false
}

// toolResultText flattens a tool result to the string OpenAI takes: its
// text blocks joined with "\n", prefixed "Error: " when IsError (OpenAI
// has no error flag, 003 §5.3). Other blocks are dropped with the WARN.
func toolResultText(c *driver.Call, m *canonical.Message, tr canonical.ToolResultBlock) string {
	var sb strings.Builder
	if tr.IsError {
		sb.WriteString("Error: ")
	}
	first := true
	for _, b := range tr.Content {
		t, ok := b.(canonical.TextBlock)
		if !ok {
			c.Drop(m, b.Type(), "tool results carry only text on this API")
			continue
		}
		if !first {
			sb.WriteByte('\n')
		}
		first = false
		sb.WriteString(t.Text)
	}
	return sb.String()
}

// toolArguments returns a tool input as the JSON string OpenAI expects in
// "arguments", verbatim ("{}" when empty).
func toolArguments(in json.RawMessage) (string, bool) {
	if len(bytes.TrimSpace(in)) == 0 {
		return "{}", true
	}
	return string(in), json.Valid(in)
}

// toolParameters returns a tool's schema for the wire, or the strict
// transform of it. An absent schema is the empty object schema.
func toolParameters(t canonical.ToolDefinition, strict bool) (json.RawMessage, error) {
	if strict {
		return StrictSchema(t.InputSchema)
	}
	if len(bytes.TrimSpace(t.InputSchema)) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	return t.InputSchema, nil
}

func sessionOf(req *canonical.Request, m canonical.Message) string {
	if m.SessionID != "" {
		return m.SessionID
	}
	return req.SessionID
}

// wireIDs returns the request's tool-id map, or a call-local one.
func wireIDs(req *canonical.Request) canonical.ToolIDMap {
	if req.ToolIDs != nil {
		return req.ToolIDs
	}
	return adapters.NewToolIDMap()
}

// marshalBody encodes a request body without HTML escaping, so that wire
// bodies read as written.
func marshalBody(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// effort maps a ThinkingConfig to an OpenAI reasoning effort: Effort when
// given, else derived from BudgetTokens (≤2048 low, ≤8192 medium, else
// high), else medium.
func effort(t *canonical.ThinkingConfig) string {
	switch {
	case t == nil:
		return ""
	case t.Effort != "":
		return t.Effort
	case t.BudgetTokens <= 0:
		return "medium"
	case t.BudgetTokens <= 2048:
		return "low"
	case t.BudgetTokens <= 8192:
		return "medium"
	}
	return "high"
}
