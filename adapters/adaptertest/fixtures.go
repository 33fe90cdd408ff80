package adaptertest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ModuleRoot returns the first directory above the working directory that
// holds go.mod: the root of the metis module under go test.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// FixturesRoot returns the real provider recordings vendored into the
// repository, testdata/recordings at the module root (each recording with
// its SOURCE.txt: origin project, file and licence), joined with elem. It
// fails when there is no module root or the path does not exist.
func FixturesRoot(elem ...string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	fx := filepath.Join(append([]string{root, "testdata", "recordings"}, elem...)...)
	if _, err := os.Stat(fx); err != nil {
		return "", fmt.Errorf("recording missing from testdata/recordings: %w", err)
	}
	return fx, nil
}

// FixturesDir is FixturesRoot for a test: a missing recording is a test
// failure, never a skip, since the recordings ship with the repository.
// Call it from the test goroutine, never from a server handler.
func FixturesDir(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, err := FixturesRoot(elem...)
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// ReadFixture reads one file of a recording (api, recording name, file
// name), failing tb when it is missing.
func ReadFixture(tb testing.TB, api, name, file string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(FixturesDir(tb), api, name, file))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Mutate returns a recording's body with its first old replaced by new:
// real traffic changed in one place, for the tests that hold decoders to
// failing on what they cannot understand. It fails the test when body
// does not hold old, so a re-recorded fixture cannot make the change a
// no-op.
func Mutate(t testing.TB, body []byte, old, new string) []byte {
	t.Helper()
	if !strings.Contains(string(body), old) {
		t.Fatalf("the recording does not hold what the test changes: %q", old)
	}
	return []byte(strings.Replace(string(body), old, new, 1))
}
