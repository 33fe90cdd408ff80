package check

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/metis-llm/metis/canonical"
)

// stdTranscript is encoding/json's compact encoding of msgs, as
// EncodeIndented encodes before it indents.
func stdTranscript(msgs []canonical.Message) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(msgs)
	return buf.Bytes(), err
}

// checkTranscript holds appendTranscript to encoding/json for msgs: the
// same bytes where it takes them, and an encoding/json error never
// taken. It reports whether it took them.
func checkTranscript(t *testing.T, what string, msgs []canonical.Message) bool {
	t.Helper()
	got, ok := appendTranscript(nil, msgs)
	want, err := stdTranscript(msgs)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: appendTranscript took messages encoding/json refuses: %v", what, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: appendTranscript differs from encoding/json at byte %d:\n%.300s\nwant\n%.300s", what, diffAt(got, want), got[diffAt(got, want):], want[diffAt(got, want):])
	}
	return true
}

func diffAt(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// tricky holds what encoding/json escapes: quotes, backslashes, controls
// (short and \u00XX), HTML characters (escaped inside blocks and
// metadata, not at the top level), U+2028/9, invalid UTF-8, and text
// that is merely non-ASCII.
const tricky = "q\"b\\s\b\f\n\r\t\x01\x1f<a&b>\u2028\u2029\xff\xc3(é😀\x7f"

// craftedMessages use every block kind and every metadata field
// appendTranscript writes.
func craftedMessages() []canonical.Message {
	conf := 0.5
	return []canonical.Message{
		{ID: tricky, SessionID: "s<1>", Role: canonical.RoleUser, Content: canonical.Blocks{
			canonical.TextBlock{Text: tricky},
			canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://x/y?a=1&b=<2>"}, MediaType: "image/png"},
		}, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600)), SchemaVersion: 1},
		{ID: "a", Role: canonical.RoleAssistant, Content: canonical.Blocks{
			canonical.ThinkingBlock{Text: tricky, Signature: "sig&"},
			canonical.ThinkingBlock{Text: ""},
			canonical.RedactedThinkingBlock{Data: tricky},
			canonical.ToolUseBlock{ID: "tu_1", Name: "f<x>", Input: json.RawMessage(` {"a" : "<&>\u2028", "b":[1, 2.50]} `), InputError: tricky},
			canonical.ToolUseBlock{ID: "tu_2", Name: "g"},
		}, Metadata: canonical.MessageMetadata{
			Model: "m<1>", ServedModel: tricky, Provider: "p", ParentToolUseID: "tu_0",
			Usage: &canonical.Usage{InputTokens: 1, OutputTokens: -2, CachedInputTokens: 3, CacheCreationInputTokens: 4,
				ReasoningTokens: 5, CostUSD: decimal.RequireFromString("0.00012345"), PricingVersion: "v&1", LatencyMS: 7, Estimated: true},
			Status:      canonical.StatusCancelled,
			ProviderRaw: map[string]json.RawMessage{"z": json.RawMessage(`{"k": "<v>"}`), "a": json.RawMessage(`[1]`)},
			UserID:      "u", TeamID: "t<",
			CriticalBlocks: []int{0, 3},
			Routing:        &canonical.RoutingDecisionRecord{Mode: "rule<", ChosenModel: tricky, Reason: "r&", RuleName: "n", AlternativesConsidered: []string{"a<", tricky}},
		}, SchemaVersion: 2},
		{ID: "r0", Metadata: canonical.MessageMetadata{Routing: &canonical.RoutingDecisionRecord{}}},
		{ID: "t", Role: canonical.RoleTool, Content: canonical.Blocks{
			canonical.ToolResultBlock{ToolUseID: "tu_1", IsError: true, Content: canonical.Blocks{canonical.TextBlock{Text: "<r>"}}},
			canonical.ToolResultBlock{ToolUseID: "tu_2"},
		}, Metadata: canonical.MessageMetadata{Usage: &canonical.Usage{}}},
		{}, // zero: nil content, empty metadata, zero time
		// What appendTranscript leaves to encoding/json.
		{ID: "r", Metadata: canonical.MessageMetadata{Routing: &canonical.RoutingDecisionRecord{Mode: "fixed", Confidence: &conf}}},
		{ID: "x", Metadata: canonical.MessageMetadata{Extra: map[string]json.RawMessage{"later": json.RawMessage(`1`)}}},
		{ID: "u", Content: canonical.Blocks{canonical.UnknownBlock{BlockType: "new", Raw: json.RawMessage(`{"type":"new"}`)}}},
		{ID: "p", Content: canonical.Blocks{&canonical.TextBlock{Text: "pointer"}}},
		{ID: "bad", Content: canonical.Blocks{canonical.ToolUseBlock{Input: json.RawMessage(`{`)}}},
		{ID: "year", CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
}

// TestTranscriptEncoding holds appendTranscript to encoding/json over
// every golden transcript of the suite (decoded, then encoded both ways),
// and crafted messages; TranscriptJSON's output is EncodeIndented's.
func TestTranscriptEncoding(t *testing.T) {
	crafted := craftedMessages()
	for i, m := range crafted {
		took := checkTranscript(t, "crafted "+m.ID, []canonical.Message{m})
		if wantTaken := i < 5; took != wantTaken {
			t.Errorf("crafted message %d (%q): taken %t, want %t", i, m.ID, took, wantTaken)
		}
	}
	checkTranscript(t, "crafted, together", crafted[:5])
	checkTranscript(t, "none", []canonical.Message{})

	paths, err := filepath.Glob(filepath.Join("..", "..", "goldens", "*", "*", "*", "*", GoldenTranscript))
	if err != nil || len(paths) < 1000 {
		t.Fatalf("%d golden transcripts (%v)", len(paths), err)
	}
	taken := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []canonical.Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if checkTranscript(t, p, msgs) {
			taken++
		}
		got, err := TranscriptJSON(msgs)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: TranscriptJSON of the decoded golden differs from it at byte %d", p, diffAt(got, data))
		}
	}
	if taken < len(paths)*9/10 {
		t.Errorf("appendTranscript took %d of %d golden transcripts: the rest went through encoding/json", taken, len(paths))
	}
}

// FuzzTranscriptEncoding holds appendTranscript to encoding/json for
// messages built from arbitrary text and tool input.
func FuzzTranscriptEncoding(f *testing.F) {
	f.Add(tricky, `{"a":"<&>"}`, int64(1))
	f.Add("", "", int64(0))
	f.Add("plain", " [1, 2] ", int64(-5))
	f.Fuzz(func(t *testing.T, s, input string, n int64) {
		msgs := craftedMessages()[:4]
		m := &msgs[1]
		m.ID, m.SessionID, m.Role = s, s, canonical.Role(s)
		m.Content = append(m.Content, canonical.TextBlock{Text: s}, canonical.ToolUseBlock{ID: s, Name: s, Input: json.RawMessage(input), InputError: s},
			canonical.ToolResultBlock{ToolUseID: s, Content: canonical.Blocks{canonical.ThinkingBlock{Text: s, Signature: s}}})
		m.Metadata.Model, m.Metadata.Status, m.Metadata.TeamID = s, canonical.MessageStatus(s), s
		m.Metadata.ProviderRaw = map[string]json.RawMessage{s: json.RawMessage(input)}
		m.Metadata.Usage.LatencyMS, m.Metadata.Usage.InputTokens = n, int(n)
		m.CreatedAt = time.Unix(n, n)
		checkTranscript(t, "fuzzed", msgs)
	})
}

// checkTraceLine holds appendTraceLine to EventsJSON's encoder for l,
// and reports whether it took l.
func checkTraceLine(t *testing.T, what string, l TraceLine) bool {
	t.Helper()
	got, ok := appendTraceLine(nil, &l)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(l)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: appendTraceLine took a line encoding/json refuses: %v", what, err)
	}
	if want := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
		t.Fatalf("%s: appendTraceLine\n%s\nwant\n%s", what, got, want)
	}
	return true
}

// TestTraceLineEncoding holds appendTraceLine to encoding/json over the
// lines of every golden events.json and crafted lines with every field
// set, and EventsJSON's output to the golden files.
func TestTraceLineEncoding(t *testing.T) {
	zero, seven := 0, -7
	full := TraceLine{Step: 3, Type: tricky, Index: &seven, Model: tricky, Served: "s<", Text: tricky, Signature: "&",
		ToolUseID: "tu_1", ToolName: "n>", Partial: `{"a":`, Input: json.RawMessage(` { "a" : [1, "<\u2028>"] } `),
		StopReason: "end_turn", Usage: &canonical.TokenUsage{InputTokens: 1, OutputTokens: 2, CachedInputTokens: 3, CacheCreationInputTokens: 4, ReasoningTokens: 5, Estimated: true},
		Attempt: 2, Status: 529, WaitMS: -1, Backoff: true, Class: "overloaded", Code: tricky}
	for _, c := range []struct {
		name  string
		l     TraceLine
		taken bool
	}{
		{"every field", full, true},
		{"zero", TraceLine{}, true},
		{"index 0", TraceLine{Index: &zero, Usage: &canonical.TokenUsage{}}, true},
		{"string input", TraceLine{Input: json.RawMessage(`"{\"a\":"`)}, true},
		{"invalid input", TraceLine{Input: json.RawMessage(`{"a":`)}, false},
	} {
		if took := checkTraceLine(t, c.name, c.l); took != c.taken {
			t.Errorf("%s: taken %t, want %t", c.name, took, c.taken)
		}
	}
	if _, err := EventsJSON([]TraceLine{full, {Input: json.RawMessage(`{`)}}); err == nil {
		t.Error("EventsJSON of an invalid final input: no error")
	}

	paths, err := filepath.Glob(filepath.Join("..", "..", "goldens", "*", "*", "*", "*", GoldenEvents))
	if err != nil || len(paths) < 1000 {
		t.Fatalf("%d golden events files (%v)", len(paths), err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var lines []TraceLine
		if err := json.Unmarshal(data, &lines); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for i, l := range lines {
			if !checkTraceLine(t, p, l) {
				t.Errorf("%s: line %d left to encoding/json", p, i)
			}
		}
		got, err := EventsJSON(lines)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: EventsJSON of the decoded golden differs from it at byte %d", p, diffAt(got, data))
		}
	}
}

// FuzzTraceLineEncoding holds appendTraceLine to encoding/json for lines
// of arbitrary text and final input.
func FuzzTraceLineEncoding(f *testing.F) {
	f.Add(tricky, `{"a":"<&>"}`, int64(1))
	f.Add("", "", int64(0))
	f.Add("x", " [1, 2] ", int64(-5))
	f.Fuzz(func(t *testing.T, s, input string, n int64) {
		i := int(n)
		checkTraceLine(t, "fuzzed", TraceLine{Step: i, Type: s, Index: &i, Model: s, Served: s, Text: s, Signature: s, ToolUseID: s,
			ToolName: s, Partial: s, Input: json.RawMessage(input), StopReason: canonical.StopReason(s),
			Usage: &canonical.TokenUsage{InputTokens: i, ReasoningTokens: i, Estimated: n%2 == 0}, Attempt: i, Status: i, WaitMS: n,
			Backoff: n%3 == 0, Class: canonical.ErrorClass(s), Code: s})
	})
}
