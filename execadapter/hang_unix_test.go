//go:build unix

package execadapter_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/metis-llm/metis/execadapter"
)

// hangSignal makes a hung Go child (the shim) write its goroutines'
// stacks before it is killed, into the timeout's problem.
var hangSignal os.Signal = syscall.SIGQUIT

// A hung child given a HangSignal has what it wrote to stderr then in
// the timeout's problem: for a Go child, where every goroutine was. The
// call's error stays one line.
func TestHangSignalKeepsTheChildsStacks(t *testing.T) {
	a, err := startFake(t, "hang", execadapter.Options{Timeout: 300 * time.Millisecond, HangSignal: hangSignal, HangDumpWait: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, errs := streamOnce(a)
	if len(errs) != 1 || strings.Contains(errs[0].Error(), "goroutine") {
		t.Fatalf("errors %v; want one, without the stacks", errs)
	}
	got := problems(a)
	for _, want := range []string{"[timeout", "sent nothing for 300ms while req_1 (call 2)", "its stderr after quit:", "goroutine 1 ", "execadapter_test.fakeAdapter"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[crash") || strings.Contains(got, "[stderr") {
		t.Errorf("the dump is reported as a crash or stray stderr:\n%s", got)
	}
}
