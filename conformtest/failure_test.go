package conformtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/conformtest"
	"github.com/metis-llm/metis/internal/certifytest"
)

// helperEnv selects what TestHelper certifies when the test binary runs
// itself.
const helperEnv = "CONFORMTEST_HELPER"

// noTools is the built-in adapter declaring no tool support.
type noTools struct{ adapters.Adapter }

func (n noTools) Capabilities(model string) canonical.Capabilities {
	c := n.Adapter.Capabilities(model)
	c.SupportsTools, c.SupportsParallelToolCalls, c.SupportsStreamingToolCalls = false, false, false
	return c
}

// TestHelper is not a test of its own: TestFailuresAndFiltering runs the
// test binary again with helperEnv set, to watch conformtest fail a test.
func TestHelper(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("run by TestFailuresAndFiltering")
	}
	base := builtin(t, "anthropic")
	wrap := map[string]func(adapters.Adapter) adapters.Adapter{
		"broken":   func(a adapters.Adapter) adapters.Adapter { return certifytest.DropToolEnd{Adapter: a} },
		"no-tools": func(a adapters.Adapter) adapters.Adapter { return noTools{a} },
	}[mode]
	conformtest.Run(t, "anthropic", func(c adapters.Config) (adapters.Adapter, error) {
		a, err := base(c)
		if err != nil {
			return nil, err
		}
		return wrap(a), nil
	})
}

func helper(t *testing.T, mode string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.v", "-test.count=1"}, args...)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A broken mapping fails exactly the subtests it breaks, naming the
// scenario and the check; -run selects subtests by scenario id; an
// undeclared capability skips with the reason.
func TestFailuresAndFiltering(t *testing.T) {
	t.Run("broken mapping", func(t *testing.T) {
		out, err := helper(t, "broken", "-test.run", "^TestHelper$/^tools/single-round-trip/")
		if err == nil {
			t.Fatalf("the broken adapter passed:\n%s", out)
		}
		for _, want := range []string{
			"--- FAIL: TestHelper/tools/single-round-trip/anthropic:claude-sonnet-4-6",
			"tools/single-round-trip [anthropic:claude-sonnet-4-6]",
			"check stream_invariants",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "TestHelper/basic/") {
			t.Errorf("-run kept only tools/single-round-trip, but other scenarios ran:\n%s", out)
		}
	})
	t.Run("undeclared capability", func(t *testing.T) {
		out, err := helper(t, "no-tools", "-test.run", "^TestHelper$/^(tools|basic)$/^(single-round-trip|plain-text)$/")
		if err != nil {
			t.Fatalf("an adapter without tools failed instead of skipping: %v\n%s", err, out)
		}
		for _, want := range []string{
			"--- SKIP: TestHelper/tools/single-round-trip/anthropic:claude-sonnet-4-6",
			"does not declare tools",
			"--- PASS: TestHelper/basic/plain-text/anthropic:claude-sonnet-4-6",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
}
