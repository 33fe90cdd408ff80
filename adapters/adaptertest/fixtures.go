package adaptertest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FixturesRoot returns the shared recorded fixtures, ../shared/fixtures
// beside the module root (the first directory above the working directory
// holding go.mod), joined with elem. It fails when there is no module root
// or the path does not exist; fuzz seeding, which must not skip, uses it
// directly.
func FixturesRoot(elem ...string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test directory")
		}
		dir = parent
	}
	fx := filepath.Join(append([]string{dir, "..", "shared", "fixtures"}, elem...)...)
	if _, err := os.Stat(fx); err != nil {
		return "", fmt.Errorf("shared fixtures absent: %w", err)
	}
	return fx, nil
}

// FixturesDir is FixturesRoot for a test: it skips tb when the fixtures
// (or the path elem names inside them) are absent.
func FixturesDir(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, err := FixturesRoot(elem...)
	if err != nil {
		tb.Skip(err.Error())
	}
	return dir
}
