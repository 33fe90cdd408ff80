package report_test

import (
	"slices"
	"testing"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/report"
)

// TestNewFaultMatrixCells builds the matrix of two runs by hand: a cell
// with calls takes their worst outcome, one without is missing, or n/a
// when its kind needs a stream and the cell is the non-streamed one; a
// kind faults does not know is added after the known ones; a default
// column comes before one of the runs' own in order of appearance.
func TestNewFaultMatrixCells(t *testing.T) {
	runs := []harness.ScenarioResult{
		{ID: "f/one", Model: "mine:m1", Status: harness.StatusFail, Faults: []harness.FaultUse{
			{Kinds: []string{"reset"}, Column: "mine", Streamed: true, Status: harness.StatusPass},
			{Kinds: []string{"custom"}, Column: "mine", Streamed: false, Status: harness.StatusFail},
		}},
		{ID: "f/two", Model: "anthropic:claude", Status: harness.StatusKnownFailure, Faults: []harness.FaultUse{
			{Kinds: []string{"reset"}, Column: "anthropic", Streamed: true, Status: harness.StatusPass},
			{Kinds: []string{"reset"}, Column: "anthropic", Streamed: true, Status: harness.StatusKnownFailure},
			{Kinds: []string{"reset"}, Column: "anthropic", Streamed: false, Status: harness.StatusSkip},
		}},
	}
	m := report.NewFaultMatrix(runs)

	var wantKinds []string
	for _, k := range faults.Kinds() {
		wantKinds = append(wantKinds, string(k))
	}
	wantKinds = append(wantKinds, "custom")
	if !slices.Equal(m.Kinds, wantKinds) {
		t.Errorf("Kinds = %q, want %q", m.Kinds, wantKinds)
	}
	if want := []string{"anthropic", "mine"}; !slices.Equal(m.Columns, want) {
		t.Errorf("Columns = %q, want %q", m.Columns, want)
	}
	if want := len(wantKinds) * 2; len(m.Cells) != want {
		t.Fatalf("%d cells, want %d (every kind × every column)", len(m.Cells), want)
	}
	cells := map[[2]string]report.FaultCell{}
	for _, c := range m.Cells {
		cells[[2]string{c.Kind, c.Column}] = c
	}
	for _, tt := range []struct {
		kind, col             string
		streamed, nonStreamed string
		runs                  []string
	}{
		{"reset", "mine", "pass", report.CellMissing, []string{"f/one [mine:m1]"}},
		{"custom", "mine", report.CellMissing, "fail", []string{"f/one [mine:m1]"}},
		{"reset", "anthropic", "known_failure", "skip", []string{"f/two [anthropic:claude]"}},
		{"status", "anthropic", report.CellMissing, report.CellMissing, nil},
		{"error_event", "mine", report.CellMissing, report.CellNotApplicable, nil},
		{"burst", "anthropic", report.CellMissing, report.CellNotApplicable, nil},
	} {
		c := cells[[2]string{tt.kind, tt.col}]
		if c.Streamed != tt.streamed || c.NonStreamed != tt.nonStreamed || !slices.Equal(c.Runs, tt.runs) {
			t.Errorf("%s × %s = streamed %q, non-streamed %q, runs %q; want %q, %q, %q",
				tt.kind, tt.col, c.Streamed, c.NonStreamed, c.Runs, tt.streamed, tt.nonStreamed, tt.runs)
		}
	}
	stream := 0
	for _, k := range wantKinds {
		if faults.NeedsStream(faults.Kind(k)) {
			stream++
		}
	}
	// Every kind × 2 columns × streamed or not, less the non-streamed
	// cells of the stream-only kinds; covered: reset streamed and not
	// (anthropic), reset streamed and custom non-streamed (mine).
	if want := len(wantKinds)*4 - 2*stream; m.Total != want {
		t.Errorf("Total = %d, want %d", m.Total, want)
	}
	if m.Covered != 4 {
		t.Errorf("Covered = %d, want 4", m.Covered)
	}
}
