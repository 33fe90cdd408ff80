package adapters_test

import (
	"encoding/json"
	"io/fs"
	"path"
	"testing"

	"github.com/metis-llm/metis/goldens"
)

// TestUsageUpdateOnlyOnChange holds every built-in adapter, on every
// column of the suite, to one usage.update per change of the usage: no
// stream reports the same usage twice in a row. Providers that repeat
// their cumulative usage on every chunk (Gemini and Vertex's Gemini do,
// with a usageMetadata on each) would otherwise double the events a
// consumer handles. The contract (000) does not require it of other
// adapters, so it is a property of metis's, checked here on the goldens
// every `conform run` compares the adapters' events with.
func TestUsageUpdateOnlyOnChange(t *testing.T) {
	files, streams := 0, 0
	err := fs.WalkDir(goldens.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) != "events.json" {
			return err
		}
		data, err := fs.ReadFile(goldens.FS, p)
		if err != nil {
			return err
		}
		var events []struct {
			Step  int             `json:"step"`
			Type  string          `json:"type"`
			Usage json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal(data, &events); err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		files++
		var last string // the usage the current stream last reported
		for i, ev := range events {
			switch ev.Type {
			case "attempt", "message.start": // a new stream
				last = ""
			case "usage.update":
				if string(ev.Usage) == last {
					t.Errorf("%s: event %d (step %d) repeats the usage the stream last reported, %s", p, i, ev.Step, ev.Usage)
				}
				if last == "" {
					streams++
				}
				last = string(ev.Usage)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 1000 || streams < 100 {
		t.Fatalf("read %d events.json with %d streams reporting usage; the goldens are not where they were", files, streams)
	}
}
