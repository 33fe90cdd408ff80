package report_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
)

// sharedDir is a temporary directory for what tests share across the
// test binary (realReport's run), removed when the tests are done.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "metis-harness-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// factories builds every adapter metis ships.
func factories() map[string]adapters.Factory { return providers.Factories() }
