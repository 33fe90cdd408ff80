package check

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/metis-llm/metis/canonical"
)

// appendTranscript appends the compact JSON encoding/json gives msgs
// (through EncodeIndented's encoder: no HTML escaping at the top level,
// the blocks' and metadata's own MarshalJSON escaping theirs), and a
// newline, as Encoder.Encode ends. It writes the canonical types'
// fields itself where encoding/json walks them by reflection and then
// re-reads (compacts) what each MarshalJSON returns, which was most of
// the time spent on a run's transcript golden. It reports false, with
// dst unspecified, for what it leaves to encoding/json: unknown or nil
// blocks, metadata with unknown fields or a routing confidence, and times
// encoding/json refuses. TestTranscriptEncoding holds it to
// encoding/json over every golden transcript and crafted messages.
func appendTranscript(dst []byte, msgs []canonical.Message) ([]byte, bool) {
	dst = append(dst, '[')
	for i := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendMessage(dst, &msgs[i]); !ok {
			return dst, false
		}
	}
	return append(dst, ']', '\n'), true
}

func appendMessage(dst []byte, m *canonical.Message) ([]byte, bool) {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, m.ID, false)
	dst = append(dst, `,"session_id":`...)
	dst = appendString(dst, m.SessionID, false)
	dst = append(dst, `,"role":`...)
	dst = appendString(dst, string(m.Role), false)
	dst = append(dst, `,"content":`...)
	var ok bool
	if dst, ok = appendBlocks(dst, m.Content); !ok {
		return dst, false
	}
	dst = append(dst, `,"metadata":`...)
	if dst, ok = appendMetadata(dst, &m.Metadata); !ok {
		return dst, false
	}
	dst = append(dst, `,"created_at":`...)
	t, err := m.CreatedAt.MarshalJSON()
	if err != nil {
		return dst, false
	}
	dst = append(dst, t...)
	dst = append(dst, `,"schema_version":`...)
	dst = strconv.AppendInt(dst, int64(m.SchemaVersion), 10)
	return append(dst, '}'), true
}

// appendBlocks writes Blocks.MarshalJSON's form: each block an object
// with its "type" first and its fields as json.Marshal (HTML escaping)
// writes them.
func appendBlocks(dst []byte, bs canonical.Blocks) ([]byte, bool) {
	dst = append(dst, '[')
	for i, b := range bs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":`...)
		switch b := b.(type) {
		case canonical.TextBlock:
			dst = append(dst, `"text","text":`...)
			dst = appendString(dst, b.Text, true)
		case canonical.ToolUseBlock:
			dst = append(dst, `"tool_use","id":`...)
			dst = appendString(dst, b.ID, true)
			dst = append(dst, `,"name":`...)
			dst = appendString(dst, b.Name, true)
			dst = append(dst, `,"input":`...)
			in, err := json.Marshal(b.Input) // checked and compacted, as in the block
			if err != nil {
				return dst, false
			}
			dst = append(dst, in...)
			if b.InputError != "" {
				dst = append(dst, `,"input_error":`...)
				dst = appendString(dst, b.InputError, true)
			}
		case canonical.ToolResultBlock:
			dst = append(dst, `"tool_result","tool_use_id":`...)
			dst = appendString(dst, b.ToolUseID, true)
			dst = append(dst, `,"content":`...)
			var ok bool
			if dst, ok = appendBlocks(dst, b.Content); !ok {
				return dst, false
			}
			if b.IsError {
				dst = append(dst, `,"is_error":true`...)
			}
		case canonical.ImageBlock:
			dst = append(dst, `"image","source":{"kind":`...)
			dst = appendString(dst, b.Source.Kind, true)
			dst = append(dst, `,"data":`...)
			dst = appendString(dst, b.Source.Data, true)
			dst = append(dst, `},"media_type":`...)
			dst = appendString(dst, b.MediaType, true)
		case canonical.ThinkingBlock:
			dst = append(dst, `"thinking","text":`...)
			dst = appendString(dst, b.Text, true)
			if b.Signature != "" {
				dst = append(dst, `,"signature":`...)
				dst = appendString(dst, b.Signature, true)
			}
		case canonical.RedactedThinkingBlock:
			dst = append(dst, `"redacted_thinking","data":`...)
			dst = appendString(dst, b.Data, true)
		default:
			return dst, false
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), true
}

// appendMetadata writes MessageMetadata.MarshalJSON's form for metadata
// without unknown fields: json.Marshal of its known fields, the empty
// ones omitted.
func appendMetadata(dst []byte, m *canonical.MessageMetadata) ([]byte, bool) {
	if len(m.Extra) > 0 || m.Routing != nil && m.Routing.Confidence != nil {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, '{')
	field := func(name string) {
		if len(dst) > start+1 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
	}
	str := func(name, v string) {
		if v != "" {
			field(name)
			dst = appendString(dst, v, true)
		}
	}
	str("model", m.Model)
	str("served_model", m.ServedModel)
	str("provider", m.Provider)
	if r := m.Routing; r != nil {
		field("routing")
		dst = append(dst, `{"mode":`...)
		dst = appendString(dst, string(r.Mode), true)
		dst = append(dst, `,"chosen_model":`...)
		dst = appendString(dst, r.ChosenModel, true)
		dst = append(dst, `,"reason":`...)
		dst = appendString(dst, r.Reason, true)
		if r.RuleName != "" {
			dst = append(dst, `,"rule_name":`...)
			dst = appendString(dst, r.RuleName, true)
		}
		if len(r.AlternativesConsidered) > 0 {
			dst = append(dst, `,"alternatives_considered":[`...)
			for i, a := range r.AlternativesConsidered {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendString(dst, a, true)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	if u := m.Usage; u != nil {
		field("usage")
		dst = append(dst, '{')
		dst = appendTokenCounts(dst, u.Tokens())
		dst = append(dst, `,"cost_usd":`...)
		cost, err := u.CostUSD.MarshalJSON()
		if err != nil {
			return dst, false
		}
		dst = append(dst, cost...)
		dst = append(dst, `,"pricing_version":`...)
		dst = appendString(dst, u.PricingVersion, true)
		dst = append(dst, `,"latency_ms":`...)
		dst = strconv.AppendInt(dst, u.LatencyMS, 10)
		if u.Estimated {
			dst = append(dst, `,"estimated":true`...)
		}
		dst = append(dst, '}')
	}
	str("parent_tool_use_id", m.ParentToolUseID)
	str("status", string(m.Status))
	if len(m.ProviderRaw) > 0 {
		field("provider_raw")
		raw, err := json.Marshal(m.ProviderRaw)
		if err != nil {
			return dst, false
		}
		dst = append(dst, raw...)
	}
	str("user_id", m.UserID)
	str("team_id", m.TeamID)
	if len(m.CriticalBlocks) > 0 {
		field("critical_blocks")
		dst = append(dst, '[')
		for i, c := range m.CriticalBlocks {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, int64(c), 10)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), true
}

// appendString appends s as a JSON string the way encoding/json writes
// it: '"', '\\' and control characters escaped (\b, \f, \n, \r, \t
// short), invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped, and with
// html '<', '>' and '&' escaped too.
func appendString(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigit[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigit = "0123456789abcdef"

// appendTraceLine appends l's compact JSON as EventsJSON's encoder writes
// it (no HTML escaping, the empty fields omitted), without the newline.
// It reports false, with dst unspecified, for a final input that is not
// valid JSON, which encoding/json refuses with an error of its own.
// TestTraceLineEncoding holds it to encoding/json over every golden's
// events and crafted lines.
func appendTraceLine(dst []byte, l *TraceLine) ([]byte, bool) {
	dst = append(dst, `{"step":`...)
	dst = strconv.AppendInt(dst, int64(l.Step), 10)
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, l.Type, false)
	if l.Index != nil {
		dst = append(dst, `,"index":`...)
		dst = strconv.AppendInt(dst, int64(*l.Index), 10)
	}
	str := func(name, v string) {
		if v != "" {
			dst = append(dst, ',', '"')
			dst = append(dst, name...)
			dst = append(dst, '"', ':')
			dst = appendString(dst, v, false)
		}
	}
	num := func(name string, v int64) {
		if v != 0 {
			dst = append(dst, ',', '"')
			dst = append(dst, name...)
			dst = append(dst, '"', ':')
			dst = strconv.AppendInt(dst, v, 10)
		}
	}
	str("model", l.Model)
	str("served_model", l.Served)
	str("text", l.Text)
	str("signature", l.Signature)
	str("tool_use_id", l.ToolUseID)
	str("tool_name", l.ToolName)
	str("partial_json", l.Partial)
	if len(l.Input) > 0 {
		dst = append(dst, `,"final_input":`...)
		b := bytes.NewBuffer(dst)
		if json.Compact(b, l.Input) != nil { // as the encoder checks and compacts a RawMessage
			return dst, false
		}
		dst = b.Bytes()
	}
	str("stop_reason", string(l.StopReason))
	if u := l.Usage; u != nil {
		dst = append(dst, `,"usage":{`...)
		dst = appendTokenCounts(dst, *u)
		if u.Estimated {
			dst = append(dst, `,"estimated":true`...)
		}
		dst = append(dst, '}')
	}
	num("attempt", int64(l.Attempt))
	num("status", int64(l.Status))
	num("wait_ms", l.WaitMS)
	if l.Backoff {
		dst = append(dst, `,"backoff":true`...)
	}
	str("class", string(l.Class))
	str("code", l.Code)
	return append(dst, '}'), true
}

// appendTokenCounts writes the token counts that a transcript's usage and
// a trace line's usage both begin with, as encoding/json writes them:
// input_tokens first, reasoning_tokens only when not zero.
func appendTokenCounts(dst []byte, u canonical.TokenUsage) []byte {
	dst = append(dst, `"input_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.InputTokens), 10)
	dst = append(dst, `,"output_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.OutputTokens), 10)
	dst = append(dst, `,"cached_input_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.CachedInputTokens), 10)
	dst = append(dst, `,"cache_creation_input_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.CacheCreationInputTokens), 10)
	if u.ReasoningTokens != 0 {
		dst = append(dst, `,"reasoning_tokens":`...)
		dst = strconv.AppendInt(dst, int64(u.ReasoningTokens), 10)
	}
	return dst
}
