package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
)

// outcome is what a stream assembles to, in a form every implementation
// can produce: the text and the reasoning text, each concatenated, and
// the tool calls in order with their arguments normalized (parsed and
// re-encoded with sorted keys).
type outcome struct {
	Text, Thinking string
	Tools          []toolCall
}

type toolCall struct{ Name, Args string }

// addTool appends a tool call, normalizing its JSON arguments.
func (o *outcome) addTool(name string, args []byte) {
	o.Tools = append(o.Tools, toolCall{Name: name, Args: normalizeJSON(args)})
}

func normalizeJSON(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "invalid JSON: " + string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// impl decodes one stream to its outcome.
type impl func() (outcome, error)

// dialect is one wire format with its three implementations.
type dialect struct {
	name  string // the sub-benchmark's api= value
	api   string // its directory under testdata/recordings
	metis metisSetup
	sdk   func(tb testing.TB, body []byte) impl
	floor func(body []byte) (outcome, error)
}

// metisSetup says how to open the metis adapter for a dialect.
type metisSetup struct {
	typ, model string
	options    map[string]any
}

// streamCase is one recorded (or synthesized) stream of a dialect.
type streamCase struct {
	d      *dialect
	name   string
	body   []byte
	events int // data events on the wire
}

var dialects = []*dialect{
	{name: "anthropic", api: "anthropic", metis: metisSetup{typ: "anthropic", model: "anthropic:claude-sonnet-4-6"}, sdk: anthropicSDK, floor: anthropicFloor},
	{name: "openai-chat", api: "openai-chat", metis: metisSetup{typ: "openai", model: "openai:gpt-4.1", options: map[string]any{"dialect": "chat"}}, sdk: chatSDK, floor: chatFloor},
	{name: "openai-responses", api: "openai-responses", metis: metisSetup{typ: "openai", model: "openai:gpt-4.1"}, sdk: responsesSDK, floor: responsesFloor},
	{name: "gemini", api: "gemini", metis: metisSetup{typ: "gemini", model: "gemini:gemini-2.5-pro"}, sdk: geminiSDK, floor: geminiFloor},
}

// recorded names the real recordings each dialect is measured on.
var recorded = map[string][]string{
	"anthropic":        {"stream-thinking-signature", "stream-parallel-tool-use-input-json-delta"},
	"openai-chat":      {"stream-text-include-usage", "stream-parallel-tool-calls", "stream-reasoning-o3-mini-include-usage"},
	"openai-responses": {"stream-function-call", "stream-reasoning-summary-text"},
	"gemini":           {"stream-thought-parts", "stream-functioncall-thought-signature"},
}

// synthesizers build each dialect's large stream from its recordings'
// event shapes.
var synthesizers = map[string]func(testing.TB) []byte{
	"anthropic":        largeAnthropic,
	"openai-chat":      largeChat,
	"openai-responses": largeResponses,
	"gemini":           largeGemini,
}

// streamCases lists every stream of every dialect: the recordings, then
// the large synthesized one.
func streamCases(tb testing.TB) []streamCase {
	tb.Helper()
	var out []streamCase
	for _, d := range dialects {
		for _, name := range recorded[d.name] {
			body := recording(tb, d.api, name, "response.txt")
			out = append(out, streamCase{d: d, name: name, body: body, events: countEvents(body)})
		}
		body := synthesizers[d.name](tb)
		out = append(out, streamCase{d: d, name: "large", body: body, events: countEvents(body)})
	}
	return out
}

// countEvents counts the data events of an event stream.
func countEvents(body []byte) int {
	return bytes.Count(body, []byte("\ndata:")) + bytes.Count(body[:min(len(body), 5)], []byte("data:"))
}

// BenchmarkStream decodes each stream with metis, the provider's official
// SDK and the floor. It reports events/op, so that cmd/benchratio can
// give allocations per wire event.
func BenchmarkStream(b *testing.B) {
	for _, c := range streamCases(b) {
		impls := []struct {
			name string
			run  impl
		}{
			{"metis", metisImpl(b, c.d, c.body)},
			{"sdk", c.d.sdk(b, c.body)},
			{"floor", func() (outcome, error) { return c.d.floor(c.body) }},
			{"checkedfloor", func() (outcome, error) { return checkedFloor(c.d.floor)(c.body) }},
		}
		out, boundaries := outEvents(b, c.d, c.body)
		for _, im := range impls {
			b.Run("api="+c.d.name+"/stream="+c.name+"/impl="+im.name, func(b *testing.B) {
				// One call first, outside the measurement: what a process
				// pays once (OpenAI's tokenizer tables) is not per stream.
				if _, err := im.run(); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(c.body)))
				b.ReportAllocs()
				cpu := startCPU()
				for b.Loop() {
					if _, err := im.run(); err != nil {
						b.Fatal(err)
					}
				}
				cpu.report(b)
				b.ReportMetric(float64(c.events), "events/op")
				if im.name == "metis" {
					b.ReportMetric(float64(out), "out-events/op")
					b.ReportMetric(float64(boundaries), "boundaries/op")
				}
			})
		}
	}
}

// outEvents streams body through metis once and returns the canonical
// events it emits and how many of them mark a boundary: the message's
// start and end, and each content block's start and end (tool.use_start
// and tool.use_end, or the first and last delta of a text or thinking
// block). A decoder emits one event per wire event and one per boundary
// at most when it coalesces nothing it should not: cmd/benchratio holds
// each dialect to out-events ≤ events + boundaries.
func outEvents(tb testing.TB, d *dialect, body []byte) (out, boundaries int) {
	tb.Helper()
	cfg := adapters.Config{Name: d.metis.typ, APIKey: "sk-test-FAKE", Transport: memTransport{bytesBody(body), "text/event-stream"}}
	if d.metis.options != nil {
		cfg.Models = map[string]adapters.ModelConfig{d.metis.model: {WireName: strings.TrimPrefix(d.metis.model, d.metis.typ+":"), Options: d.metis.options}}
	}
	a, err := providers.Factories()[d.metis.typ](cfg)
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	req := &canonical.Request{Model: d.metis.model, Messages: []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
	}}
	blocks := map[int]bool{}
	for ev, err := range a.Stream(context.Background(), req) {
		if err != nil {
			tb.Fatal(err)
		}
		out++
		switch ev.Type {
		case canonical.EventMessageStart, canonical.EventMessageComplete:
			boundaries++
		case canonical.EventTextDelta, canonical.EventThinkingDelta, canonical.EventToolUseStart:
			if !blocks[ev.Index] {
				blocks[ev.Index] = true
				boundaries += 2 // its start and its end
			}
		}
	}
	return out, boundaries
}

// TestImplsAgree checks that metis, the SDK and the floor assemble the
// same content from every benchmarked stream, so that the comparison is
// of equal work.
func TestImplsAgree(t *testing.T) {
	for _, c := range streamCases(t) {
		t.Run(c.d.name+"/"+c.name, func(t *testing.T) {
			want, err := metisImpl(t, c.d, c.body)()
			if err != nil {
				t.Fatalf("metis: %v", err)
			}
			if want.Text == "" && want.Thinking == "" && len(want.Tools) == 0 {
				t.Fatal("metis assembled nothing")
			}
			sdk, err := c.d.sdk(t, c.body)()
			if err != nil {
				t.Fatalf("sdk: %v", err)
			}
			if diff := cmp.Diff(want, sdk); diff != "" {
				t.Errorf("the SDK assembles other content than metis (-metis +sdk):\n%s", diff)
			}
			floor, err := c.d.floor(c.body)
			if err != nil {
				t.Fatalf("floor: %v", err)
			}
			if diff := cmp.Diff(want, floor); diff != "" {
				t.Errorf("the floor assembles other content than metis (-metis +floor):\n%s", diff)
			}
			checked, err := checkedFloor(c.d.floor)(c.body)
			if err != nil {
				t.Fatalf("checked floor: %v", err)
			}
			if diff := cmp.Diff(want, checked); diff != "" {
				t.Errorf("the checked floor assembles other content than metis (-metis +checked):\n%s", diff)
			}
		})
	}
}

// TestCheckedFloorRejectsMalformed checks that the checked floor does
// the syntax check it is named for: a malformed member that no floor
// reads fails the stream, as it fails metis's.
func TestCheckedFloorRejectsMalformed(t *testing.T) {
	for _, c := range streamCases(t) {
		if c.name != "large" {
			continue
		}
		t.Run(c.d.name, func(t *testing.T) {
			i := bytes.LastIndex(c.body, []byte("data: {"))
			if i < 0 {
				i = bytes.LastIndex(c.body, []byte("data:{"))
			}
			if i < 0 {
				t.Fatal("no JSON event in the large stream")
			}
			j := i + bytes.IndexByte(c.body[i:], '{') + 1
			body := slices.Concat(c.body[:j], []byte(`"unread":tru,`), c.body[j:])
			if _, err := c.d.floor(body); err != nil {
				t.Fatalf("the plain floor checks syntax after all: %v", err)
			}
			if _, err := checkedFloor(c.d.floor)(body); err == nil {
				t.Error("the checked floor accepts a malformed event")
			}
		})
	}
}

// memTransport answers every request with body, from memory.
type memTransport struct {
	body        func() io.Reader
	contentType string
}

func (t memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {t.contentType}},
		Body:          io.NopCloser(t.body()),
		ContentLength: -1,
		Request:       r,
	}, nil
}

func bytesBody(body []byte) func() io.Reader {
	return func() io.Reader { return bytes.NewReader(body) }
}

// metisImpl streams body through the public adapters.Adapter.Stream of
// the dialect's adapter, to message.complete.
func metisImpl(tb testing.TB, d *dialect, body []byte) impl {
	return metisStream(tb, d, bytesBody(body))
}

func metisStream(tb testing.TB, d *dialect, body func() io.Reader) impl {
	tb.Helper()
	cfg := adapters.Config{Name: d.metis.typ, APIKey: "sk-test-FAKE", Transport: memTransport{body, "text/event-stream"}}
	if d.metis.options != nil {
		cfg.Models = map[string]adapters.ModelConfig{d.metis.model: {WireName: strings.TrimPrefix(d.metis.model, d.metis.typ+":"), Options: d.metis.options}}
	}
	a, err := providers.Factories()[d.metis.typ](cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	req := &canonical.Request{Model: d.metis.model, Messages: []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
	}}
	ctx := context.Background()
	return func() (outcome, error) {
		var resp *canonical.Response
		for ev, err := range a.Stream(ctx, req) {
			if err != nil {
				return outcome{}, err
			}
			if ev.Type == canonical.EventMessageComplete {
				resp = ev.Response
			}
		}
		if resp == nil {
			return outcome{}, io.ErrUnexpectedEOF
		}
		return metisOutcome(resp), nil
	}
}

func metisOutcome(r *canonical.Response) outcome {
	var o outcome
	for _, b := range r.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			o.Text += b.Text
		case canonical.ThinkingBlock:
			o.Thinking += b.Text
		case canonical.ToolUseBlock:
			o.addTool(b.Name, b.Input)
		}
	}
	return o
}
