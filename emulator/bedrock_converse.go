package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/metis-llm/metis/internal/wire"
)

// Bedrock's Converse API (POST /model/{id}/converse and
// /model/{id}/converse-stream) on the emulator: the request is checked
// as Bedrock checks it (SigV4 or a Bedrock API key, as InvokeModel), its
// Converse body rewritten into a Messages body the Anthropic handler
// answers, and the answer rewritten into Converse's: output.message,
// stopReason, usage and metrics; a stream as event frames
// (messageStart, contentBlockStart for tool calls only,
// contentBlockDelta, contentBlockStop, messageStop, metadata) whose
// payloads are the events' JSON with "p" padding, as the recordings in
// testdata/recordings/bedrock-converse show; failures as InvokeModel's.

// converseRequest is the part of a Converse body the emulator reads.
type converseRequest struct {
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	InferenceConfig struct {
		MaxTokens     int      `json:"maxTokens"`
		Temperature   *float64 `json:"temperature"`
		TopP          *float64 `json:"topP"`
		StopSequences []string `json:"stopSequences"`
	} `json:"inferenceConfig"`
	ToolConfig *struct {
		Tools []struct {
			ToolSpec struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				InputSchema struct {
					JSON json.RawMessage `json:"json"`
				} `json:"inputSchema"`
			} `json:"toolSpec"`
		} `json:"tools"`
		ToolChoice map[string]struct {
			Name string `json:"name"`
		} `json:"toolChoice"`
	} `json:"toolConfig"`
	AdditionalModelRequestFields map[string]json.RawMessage `json:"additionalModelRequestFields"`
}

// converseBlock is a Converse content block; exactly one member is set.
type converseBlock struct {
	Text  *string `json:"text"`
	Image *struct {
		Format string `json:"format"`
		Source struct {
			Bytes string `json:"bytes"`
		} `json:"source"`
	} `json:"image"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ToolResult *struct {
		ToolUseID string            `json:"toolUseId"`
		Content   []json.RawMessage `json:"content"`
		Status    string            `json:"status"`
	} `json:"toolResult"`
	ReasoningContent *struct {
		ReasoningText *struct {
			Text      string `json:"text"`
			Signature string `json:"signature"`
		} `json:"reasoningText"`
		RedactedContent *string `json:"redactedContent"`
	} `json:"reasoningContent"`
	JSON json.RawMessage `json:"json"`
}

// messagesBlock maps a Converse block to a Messages API block.
func messagesBlock(raw json.RawMessage) (map[string]any, error) {
	var b converseBlock
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, err
	}
	switch {
	case b.Text != nil:
		if *b.Text == "" {
			return nil, fmt.Errorf("text content blocks must be non-empty")
		}
		return map[string]any{"type": "text", "text": *b.Text}, nil
	case b.Image != nil:
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/" + b.Image.Format, "data": b.Image.Source.Bytes}}, nil
	case b.ToolUse != nil:
		return map[string]any{"type": "tool_use", "id": b.ToolUse.ToolUseID, "name": b.ToolUse.Name, "input": b.ToolUse.Input}, nil
	case b.ToolResult != nil:
		content := []any{}
		for _, c := range b.ToolResult.Content {
			var inner converseBlock
			if err := json.Unmarshal(c, &inner); err != nil {
				return nil, err
			}
			if inner.JSON != nil {
				content = append(content, map[string]any{"type": "text", "text": string(inner.JSON)})
				continue
			}
			if inner.Text != nil && *inner.Text == "" {
				continue
			}
			m, err := messagesBlock(c)
			if err != nil {
				return nil, err
			}
			content = append(content, m)
		}
		return map[string]any{"type": "tool_result", "tool_use_id": b.ToolResult.ToolUseID, "content": content, "is_error": b.ToolResult.Status == "error"}, nil
	case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText != nil:
		rt := b.ReasoningContent.ReasoningText
		return map[string]any{"type": "thinking", "thinking": rt.Text, "signature": rt.Signature}, nil
	case b.ReasoningContent != nil && b.ReasoningContent.RedactedContent != nil:
		return map[string]any{"type": "redacted_thinking", "data": *b.ReasoningContent.RedactedContent}, nil
	}
	return nil, fmt.Errorf("a content block has no known member: %s", raw)
}

// messagesBody rewrites a Converse body for model into a Messages body.
func messagesBody(body []byte, model string, stream bool) ([]byte, error) {
	var c converseRequest
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, err
	}
	if len(c.Messages) == 0 {
		return nil, fmt.Errorf("messages must not be empty")
	}
	m := map[string]any{"model": bedrockClaudeName(model), "stream": stream, "max_tokens": 4096}
	var msgs []any
	for _, msg := range c.Messages {
		var content []any
		for _, raw := range msg.Content {
			b, err := messagesBlock(raw)
			if err != nil {
				return nil, err
			}
			content = append(content, b)
		}
		msgs = append(msgs, map[string]any{"role": msg.Role, "content": content})
	}
	m["messages"] = msgs
	var sys []string
	for _, s := range c.System {
		sys = append(sys, s.Text)
	}
	if len(sys) > 0 {
		m["system"] = strings.Join(sys, "\n")
	}
	ic := c.InferenceConfig
	if ic.MaxTokens > 0 {
		m["max_tokens"] = ic.MaxTokens
	}
	if ic.Temperature != nil {
		m["temperature"] = *ic.Temperature
	}
	if ic.TopP != nil {
		m["top_p"] = *ic.TopP
	}
	if len(ic.StopSequences) > 0 {
		m["stop_sequences"] = ic.StopSequences
	}
	if tc := c.ToolConfig; tc != nil {
		var tools []any
		for _, t := range tc.Tools {
			tools = append(tools, map[string]any{"name": t.ToolSpec.Name, "description": t.ToolSpec.Description, "input_schema": t.ToolSpec.InputSchema.JSON})
		}
		m["tools"] = tools
		for k, v := range tc.ToolChoice {
			choice := map[string]any{"type": k}
			if k == "tool" {
				choice["name"] = v.Name
			}
			m["tool_choice"] = choice
		}
	}
	if th, ok := c.AdditionalModelRequestFields["thinking"]; ok {
		m["thinking"] = th
	}
	return marshal(m), nil
}

// serveBedrockConverse answers Converse and ConverseStream; m is the
// route's match on the escaped path: model id, operation.
func (s *Server) serveBedrockConverse(w http.ResponseWriter, r *http.Request, body []byte, m []string) {
	model, err := url.PathUnescape(m[1])
	if err != nil {
		writePlainError(w, http.StatusBadRequest, "emulator: bad model id: "+err.Error())
		return
	}
	stream := m[2] == "converse-stream"
	api := API(wire.BedrockConverse)
	fail := func(kind wire.Kind, msg string) {
		errorFor(api, kind, msg, model, s.reserve(1).id("req_emu_")).write(w)
	}
	if !s.cfg.noAuth {
		if kind, msg := s.bedrockAuth(r, body); kind != "" {
			fail(kind, msg)
			return
		}
	}
	mb, err := messagesBody(body, model, stream)
	if err != nil {
		fail(ErrorInvalidRequest, "Malformed input request: "+err.Error()+", please reformat your input and try again.")
		return
	}
	rec, reqID, ok := s.bedrockMessages(w, r, wire.BedrockConverse, model, mb)
	if !ok {
		return
	}
	w.Header().Set("X-Amzn-Requestid", reqID)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(converseAnswer(bedrockClaude.body(rec.Body.Bytes()))) //nolint:errcheck
		return
	}
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.WriteHeader(http.StatusOK)
	w.Write(converseFrames(bedrockClaude.events(splitSSE(rec.Body.Bytes())), model)) //nolint:errcheck
}

// messagesAnswer is the part of a Messages answer Converse carries.
type messagesAnswer struct {
	Content []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
	} `json:"content"`
	StopReason string        `json:"stop_reason"`
	Usage      messagesUsage `json:"usage"`
}

type messagesUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

// converseUsage is Converse's usage of u.
func converseUsage(u messagesUsage) map[string]int {
	return map[string]int{
		"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens, "totalTokens": u.InputTokens + u.OutputTokens,
		"cacheReadInputTokens": u.CacheReadInputTokens, "cacheWriteInputTokens": u.CacheCreationInputTokens,
	}
}

// converseStop is Converse's stopReason of a Messages stop_reason.
func converseStop(s string) string {
	switch s {
	case "tool_use", "max_tokens", "stop_sequence", "model_context_window_exceeded":
		return s
	case "refusal":
		return "content_filtered"
	}
	return "end_turn"
}

// converseAnswer rewrites a Messages answer as a Converse answer.
func converseAnswer(body []byte) []byte {
	var a messagesAnswer
	if json.Unmarshal(body, &a) != nil {
		return body
	}
	content := []any{}
	for _, b := range a.Content {
		switch b.Type {
		case "text":
			content = append(content, map[string]any{"text": b.Text})
		case "tool_use":
			content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": b.ID, "name": b.Name, "input": b.Input}})
		case "thinking":
			content = append(content, map[string]any{"reasoningContent": map[string]any{"reasoningText": map[string]any{"text": b.Thinking, "signature": b.Signature}}})
		case "redacted_thinking":
			content = append(content, map[string]any{"reasoningContent": map[string]any{"redactedContent": b.Data}})
		}
	}
	return marshal(map[string]any{
		"metrics":    map[string]int{"latencyMs": 120},
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": converseStop(a.StopReason),
		"usage":      converseUsage(a.Usage),
	})
}

// converseFrames re-frames a Messages stream as ConverseStream events.
func converseFrames(events []sseEvent, model string) []byte {
	var out []byte
	n := 0
	emit := func(typ string, payload map[string]any) {
		payload["p"] = bedrockPadding[:1+(n*7)%len(bedrockPadding)]
		n++
		out = append(out, wire.BedrockFrame(eventstream.Headers{
			{Name: ":event-type", Value: eventstream.StringValue(typ)},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
			{Name: ":message-type", Value: eventstream.StringValue("event")},
		}, marshal(payload))...)
	}
	var usage messagesUsage
	stop := ""
	for _, ev := range events {
		var e struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				Usage messagesUsage `json:"usage"`
			} `json:"message"`
			ContentBlock struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
				Data string `json:"data"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				Thinking    string `json:"thinking"`
				Signature   string `json:"signature"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Usage *messagesUsage `json:"usage"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(ev.data, &e)
		idx := e.Index
		switch e.Type {
		case "message_start":
			usage = e.Message.Usage
			emit("messageStart", map[string]any{"role": "assistant"})
		case "content_block_start":
			switch e.ContentBlock.Type {
			case "tool_use":
				emit("contentBlockStart", map[string]any{"contentBlockIndex": idx, "start": map[string]any{"toolUse": map[string]any{"toolUseId": e.ContentBlock.ID, "name": e.ContentBlock.Name}}})
			case "redacted_thinking":
				emit("contentBlockDelta", map[string]any{"contentBlockIndex": idx, "delta": map[string]any{"reasoningContent": map[string]any{"redactedContent": e.ContentBlock.Data}}})
			}
		case "content_block_delta":
			var d map[string]any
			switch e.Delta.Type {
			case "text_delta":
				d = map[string]any{"text": e.Delta.Text}
			case "input_json_delta":
				d = map[string]any{"toolUse": map[string]any{"input": e.Delta.PartialJSON}}
			case "thinking_delta":
				d = map[string]any{"reasoningContent": map[string]any{"text": e.Delta.Thinking}}
			case "signature_delta":
				d = map[string]any{"reasoningContent": map[string]any{"signature": e.Delta.Signature}}
			default:
				continue
			}
			emit("contentBlockDelta", map[string]any{"contentBlockIndex": idx, "delta": d})
		case "content_block_stop":
			emit("contentBlockStop", map[string]any{"contentBlockIndex": idx})
		case "message_delta":
			stop = e.Delta.StopReason
			if e.Usage != nil {
				usage.OutputTokens = e.Usage.OutputTokens
			}
		case "message_stop":
			emit("messageStop", map[string]any{"stopReason": converseStop(stop)})
			emit("metadata", map[string]any{"usage": converseUsage(usage), "metrics": map[string]int{"latencyMs": 120}})
		case "error":
			return append(out, bedrockStreamError(wire.BedrockConverse, e.Error.Type, e.Error.Message, model)...)
		}
	}
	return out
}
