package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// recording reads one file of a real recording vendored in the metis
// repository (testdata/recordings/<api>/<name>/<file>). A missing one
// fails the benchmark: the recordings ship with the repository.
func recording(tb testing.TB, api, name, file string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "recordings", api, name, file))
	if err != nil {
		tb.Fatalf("recording missing from testdata/recordings: %v", err)
	}
	return b
}

// sseEvent is one server-sent event of a recording: its name and data.
type sseEvent struct {
	name string
	data []byte
}

// parseSSE splits a recorded event stream (LF line endings, one data
// line per event, as every recording used here has) into its events.
func parseSSE(tb testing.TB, body []byte) []sseEvent {
	tb.Helper()
	var out []sseEvent
	for frame := range strings.SplitSeq(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		var ev sseEvent
		for line := range strings.SplitSeq(frame, "\n") {
			switch {
			case strings.HasPrefix(line, "event:"):
				ev.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				ev.data = []byte(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
		if ev.data != nil {
			out = append(out, ev)
		}
	}
	if len(out) == 0 {
		tb.Fatal("recording holds no event")
	}
	return out
}

// writeSSE renders events as an event stream, as the providers send them.
func writeSSE(events []sseEvent) []byte {
	var b bytes.Buffer
	for _, ev := range events {
		if ev.name != "" {
			b.WriteString("event: ")
			b.WriteString(ev.name)
			b.WriteByte('\n')
		}
		b.WriteString("data: ")
		b.Write(ev.data)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// find returns the first event whose data contains every one of subs: a
// real event to use as the template of synthesized ones.
func find(tb testing.TB, events []sseEvent, subs ...string) sseEvent {
	tb.Helper()
next:
	for _, ev := range events {
		for _, s := range subs {
			if !bytes.Contains(ev.data, []byte(s)) {
				continue next
			}
		}
		return sseEvent{name: ev.name, data: bytes.Clone(ev.data)}
	}
	tb.Fatalf("no recorded event contains %q", subs)
	return sseEvent{}
}

// valueSpan returns where the value of the first member named key starts
// and ends in the JSON text data.
func valueSpan(tb testing.TB, data []byte, key string) (start, end int) {
	tb.Helper()
	i := bytes.Index(data, []byte(strconv.Quote(key)))
	if i < 0 {
		tb.Fatalf("template has no member %q: %s", key, data)
	}
	i += len(key) + 2
	for i < len(data) && (data[i] == ' ' || data[i] == ':') {
		i++
	}
	start, depth, inString := i, 0, false
	for ; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++
		case inString:
			if c == '"' {
				inString = false
				if depth == 0 {
					return start, i + 1
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return start, i
			}
			if depth--; depth == 0 {
				return start, i + 1
			}
		case depth == 0 && (c == ',' || c == ' '):
			return start, i
		}
	}
	tb.Fatalf("member %q has no end: %s", key, data)
	return 0, 0
}

// with returns a copy of ev whose member key holds raw (JSON text)
// instead, everything else — key order, spacing, padding — as recorded.
func with(tb testing.TB, ev sseEvent, key string, raw []byte) sseEvent {
	tb.Helper()
	s, e := valueSpan(tb, ev.data, key)
	data := make([]byte, 0, len(ev.data)+len(raw))
	data = append(data, ev.data[:s]...)
	data = append(data, raw...)
	data = append(data, ev.data[e:]...)
	return sseEvent{name: ev.name, data: data}
}

// withString is with for a string value.
func withString(tb testing.TB, ev sseEvent, key, value string) sseEvent {
	return with(tb, ev, key, jsonString(value))
}

// withInt is with for a number.
func withInt(tb testing.TB, ev sseEvent, key string, n int) sseEvent {
	return with(tb, ev, key, []byte(strconv.Itoa(n)))
}

// jsonString encodes s as a JSON string the way the providers do (no
// HTML escaping).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// prose is real model text, from the recordings, cut into the short
// pieces a model streams: words with their leading space, some with
// newlines, quotes and other characters JSON escapes.
func prose(tb testing.TB) []string {
	tb.Helper()
	var text strings.Builder
	for _, ev := range parseSSE(tb, recording(tb, "openai-responses", "stream-reasoning-summary-text", "response.txt")) {
		if !bytes.Contains(ev.data, []byte(`"type":"response.output_text.delta"`)) && !bytes.Contains(ev.data, []byte(`"type":"response.reasoning_summary_text.delta"`)) {
			continue
		}
		var d struct{ Delta string }
		if err := json.Unmarshal(ev.data, &d); err != nil {
			tb.Fatal(err)
		}
		text.WriteString(d.Delta)
	}
	var pieces []string
	s := text.String()
	for len(s) > 0 {
		n := strings.IndexAny(s[1:], " \n") + 1
		if n == 0 {
			n = len(s)
		}
		pieces = append(pieces, s[:n])
		s = s[n:]
	}
	return pieces
}

// longArguments is a tool call's JSON arguments of about n bytes, as a
// model writing a file produces: a path and a long content string full
// of escaped newlines and quotes.
func longArguments(tb testing.TB, n int) string {
	tb.Helper()
	var content strings.Builder
	words := prose(tb)
	for i := 0; content.Len() < n; i++ {
		content.WriteString(words[i%len(words)])
		if i%40 == 39 {
			content.WriteString("\n\n> \"quoted\"\n")
		}
	}
	var args bytes.Buffer
	enc := json.NewEncoder(&args)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{"path": "docs/notes.md", "content": content.String()}); err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSuffix(args.String(), "\n")
}

// fragments cuts s into pieces of about size bytes, as providers cut
// tool arguments: never inside a UTF-8 sequence.
func fragments(s string, size int) []string {
	var out []string
	for len(s) > size {
		n := size
		for !utf8.RuneStart(s[n]) {
			n--
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// repeatText returns n consecutive pieces of prose, cycling.
func repeatText(pieces []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = pieces[i%len(pieces)]
	}
	return out
}

func mustf(tb testing.TB, ok bool, format string, args ...any) {
	tb.Helper()
	if !ok {
		tb.Fatal(fmt.Sprintf(format, args...))
	}
}
