package anthropic

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/replay"
)

// The fast path must change nothing but speed: every recorded stream,
// and every fuzzed one, decodes to the same events, response and error
// with it as without it.

type streamOutcome struct {
	Events []canonical.StreamEvent
	Resp   *canonical.Response
	Err    string
}

func decodeWith(fast bool, body []byte, structured bool) streamOutcome {
	defer func() { fastPaths = true }()
	fastPaths = fast
	var o streamOutcome
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := driver.NewAssembler(func(ev canonical.StreamEvent, err error) bool {
		o.Events = append(o.Events, ev)
		return true
	}, "anthropic", testModel, "req_test", nil)
	a.SetClock(epoch, func() time.Time { return epoch })
	if err := newDecoder("anthropic", structured).decodeStream(bytes.NewReader(body), a); err != nil {
		o.Err = err.Error()
	}
	if a.Finished() {
		o.Resp = a.Response()
	}
	return o
}

// sameOutcome compares two outcomes with tool ids (new ULIDs on every
// decode) numbered in order of appearance.
func sameOutcome(t *testing.T, name string, body []byte, structured bool) {
	t.Helper()
	norm := func(o streamOutcome) string {
		b, _ := json.Marshal(o)
		return replay.NormalizeIDs(string(b))
	}
	full, fast := norm(decodeWith(false, body, structured)), norm(decodeWith(true, body, structured))
	if diff := cmp.Diff(full, fast); diff != "" {
		t.Fatalf("%s: the fast path changes the outcome (-full +fast):\n%s", name, diff)
	}
}

func TestFastPathChangesNothing(t *testing.T) {
	dir := adaptertest.FixturesDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "anthropic", "*", "response.txt"))
	if len(paths) < 3 {
		t.Fatalf("only %d recorded Anthropic streams", len(paths))
	}
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sameOutcome(t, p, body, false)
		sameOutcome(t, p, body, true)
	}
}

func FuzzFastPath(f *testing.F) {
	f.Add(sse(evStart, evTextStart, evTextHello, evStop0, messageDelta("end_turn"), evMsgStop), false)
	f.Add(sameStream, false)
	addFixtureSeeds(f, "response.txt")
	f.Fuzz(func(t *testing.T, body []byte, structured bool) {
		sameOutcome(t, "fuzz", body, structured)
	})
}

// FuzzFastEvent holds the event fast path to encoding/json: whatever it
// reads, the full decoder reads the same.
func FuzzFastEvent(f *testing.F) {
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"x\"\n"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}     }`))
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`))
	f.Add([]byte(`{"type":"content_block_stop","index":0            }`))
	f.Add([]byte(`{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"x"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got streamEvent
		if !fastEvent(data, &got, &driver.Strings{}) {
			return
		}
		var want streamEvent
		var js driver.EventDecoder
		if err := js.Decode(data, &want); err != nil {
			t.Fatalf("the fast path reads %q, encoding/json fails: %v", data, err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(wireBlock{})); diff != "" {
			t.Fatalf("%q: the fast path reads otherwise (-encoding/json +fast):\n%s", data, diff)
		}
	})
}

// TestFastPathTaken checks that the fast path reads the recorded delta
// and stop events, so that the tests above compare something.
func TestFastPathTaken(t *testing.T) {
	dir := adaptertest.FixturesDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "anthropic", "*", "response.txt"))
	taken, total := 0, 0
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r := driver.NewSSEReader(bytes.NewReader(body))
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			if ev.Event != "content_block_delta" && ev.Event != "content_block_stop" {
				continue
			}
			total++
			var e streamEvent
			if fastEvent(ev.Data, &e, nil) {
				taken++
			}
		}
	}
	if total == 0 || taken*10 < total*9 {
		t.Fatalf("the fast path reads %d of %d recorded delta and stop events, want 90%%", taken, total)
	}
}

// TestFastPathLeavesCitations: a citations_delta carries a member the
// fast path does not read, so it leaves the event to the full decoder.
func TestFastPathLeavesCitations(t *testing.T) {
	var ev streamEvent
	if fastEvent([]byte(`{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}`), &ev, nil) {
		t.Fatal("the fast path read a citations_delta")
	}
}
