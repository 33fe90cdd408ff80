package adaptertest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

var _ adapters.Clock = (*adaptertest.Clock)(nil)

func TestClockRecordsSleeps(t *testing.T) {
	start := time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)
	c := adaptertest.NewClock(start)
	if err := c.Sleep(context.Background(), time.Second); err != nil {
		t.Fatalf("Sleep: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, 2*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep on a cancelled context = %v, want context.Canceled", err)
	}
	if got, want := c.Sleeps(), []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(got, want) {
		t.Fatalf("Sleeps = %v, want %v", got, want)
	}
	if !c.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", c.Now(), start)
	}
}

func TestCollect(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	tests := []struct {
		name     string
		yields   []error // nil yields an event
		wantEvs  int
		wantErr  error
		wantSeen int
	}{
		{"events only", []error{nil, nil}, 2, nil, 2},
		{"error last", []error{nil, errA}, 1, errA, 2},
		{"drains past the first error", []error{errA, nil, errB}, 1, errA, 3},
		{"empty", nil, 0, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen := 0
			seq := func(yield func(canonical.StreamEvent, error) bool) {
				for _, err := range tc.yields {
					seen++
					if !yield(canonical.StreamEvent{Type: canonical.EventTextDelta}, err) {
						return
					}
				}
			}
			evs, err := adaptertest.Collect(seq)
			if len(evs) != tc.wantEvs || err != tc.wantErr || seen != tc.wantSeen {
				t.Fatalf("Collect = %d events, %v (seen %d); want %d, %v (seen %d)", len(evs), err, seen, tc.wantEvs, tc.wantErr, tc.wantSeen)
			}
		})
	}
}

func TestEventsOf(t *testing.T) {
	evs := []canonical.StreamEvent{
		{Type: canonical.EventMessageStart},
		{Type: canonical.EventTextDelta, Text: "a"},
		{Type: canonical.EventUsageUpdate},
		{Type: canonical.EventTextDelta, Text: "b"},
	}
	got := adaptertest.EventsOf(evs, canonical.EventTextDelta)
	if len(got) != 2 || got[0].Text != "a" || got[1].Text != "b" {
		t.Fatalf("EventsOf = %+v, want the two text deltas a, b", got)
	}
}

func TestFixturesRoot(t *testing.T) {
	dir, err := adaptertest.FixturesRoot()
	if err != nil {
		t.Fatalf("FixturesRoot: %v", err)
	}
	if filepath.Base(dir) != "recordings" || filepath.Base(filepath.Dir(dir)) != "testdata" {
		t.Fatalf("FixturesRoot = %q, want a path ending in testdata/recordings", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "anthropic", "stream-thinking-signature", "SOURCE.txt")); err != nil {
		t.Fatalf("vendored recording lacks its SOURCE.txt: %v", err)
	}
	if _, err := adaptertest.FixturesRoot("no-such-api-xyz"); err == nil {
		t.Fatal("FixturesRoot(no-such-api-xyz) succeeded, want an error")
	}
}

// TestRecordingListsNameRecordings: every entry of PendingRecordings and
// PlatformRecordings names a vendored recording, and none is in both.
func TestRecordingListsNameRecordings(t *testing.T) {
	for name, lists := range map[string]map[string]string{"PendingRecordings": adaptertest.PendingRecordings, "PlatformRecordings": adaptertest.PlatformRecordings} {
		for key := range lists {
			if _, err := adaptertest.FixturesRoot(filepath.FromSlash(key)); err != nil {
				t.Errorf("%s[%q]: %v", name, key, err)
			}
		}
	}
	for key := range adaptertest.PlatformRecordings {
		if adaptertest.PendingRecordings[key] != "" {
			t.Errorf("%s is both pending and covered", key)
		}
	}
}
