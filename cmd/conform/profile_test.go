package main

import (
	"context"
	"io"
	"os"
	"testing"
)

// TestProfileRun runs `conform run` over the whole suite in process when
// METIS_PROFILE_RUN is set, for `go test -run TestProfileRun -cpuprofile`:
// the CLI has no profiling flag, and a profile of the run is what tells
// where its per-process setup and per-run time go
// (docs/development/performance.md).
func TestProfileRun(t *testing.T) {
	if os.Getenv("METIS_PROFILE_RUN") == "" {
		t.Skip("set METIS_PROFILE_RUN=1 to profile conform run over the whole suite")
	}
	dir := t.TempDir()
	args := []string{"run", "--scenarios", root + "/scenarios", "--cassettes", root + "/cassettes", "--goldens", root + "/goldens", "--report-dir", dir}
	if code := run(context.Background(), args, io.Discard, os.Stderr); code != exitOK {
		t.Fatalf("conform run exited %d", code)
	}
}
