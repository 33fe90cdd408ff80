package execadapter_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/execadapter"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/internal/certifytest"
	"github.com/metis-llm/metis/protocol"
)

// shim is the path of cmd/adapter-stdio, built once by TestMain.
var shim string

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeAdapter(mode))
	}
	dir, err := os.MkdirTemp("", "execadapter-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	shim = filepath.Join(dir, "adapter-stdio")
	if out, err := exec.Command("go", "build", "-o", shim, "github.com/metis-llm/metis/cmd/adapter-stdio").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the shim: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// lineChecker validates every line metis writes against the published
// schema.
type lineChecker struct {
	mu   sync.Mutex
	errs []string
	n    int
}

func (l *lineChecker) trace(dir string, line []byte) {
	if dir != "metis" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if err := protocol.ValidateToAdapter(line); err != nil && len(l.errs) < 5 {
		l.errs = append(l.errs, fmt.Sprintf("%v: %s", err, line))
	}
}

// Every built-in adapter, run as a child process through the Go shim,
// certifies with the same outcome for every run as `conform run` gives
// it, and every line metis wrote is valid against the schema.
//
// Each run starts a child process: the whole matrix (every scenario on
// every column) takes 30+ CPU-minutes, so only `go test -tags matrix`
// runs it (.ci/run does). Plain go test certifies every column on one
// scenario in ten (every tenth id, in order); -short (the race
// detector's pass) on the first provider's column only.
func TestBuiltinAdaptersCertifyThroughTheShim(t *testing.T) {
	// The cloud platforms read their credentials from the environment,
	// which the protocol does not carry: the child inherits the
	// harness's fake ones, as an in-process run gets them from Getenv.
	for _, v := range []string{"GOOGLE_OAUTH_ACCESS_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(v, harness.FakeKey)
	}
	want := certifytest.ConformOutcomes(t, "..")
	providers, err := certify.SuiteProviders(certify.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		providers = providers[:1]
	}
	srv, err := replay.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lines := &lineChecker{}
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			target := certify.Target{Provider: provider, Kind: "exec", Command: shim,
				New: execadapter.Factory(execadapter.Options{Command: []string{shim}, Trace: lines.trace, HangSignal: hangSignal})}
			// Left out: conform run's known failures (adapter bugs still to
			// fix, which no certificate excuses). Nothing else: every run
			// gives the same outcome through the shim.
			ids := certifytest.CertifiableIDs(want, provider)
			if !fullMatrix {
				ids = everyNth(ids, 10)
			}
			plan, err := certify.NewPlan(target, certify.Options{Server: srv, IDs: ids})
			if err != nil {
				t.Fatal(err)
			}
			// Six at once: the runs mostly wait on their child process
			// and the replay server (a column of the whole matrix takes
			// 200–400 s at two on a loaded machine).
			report, err := plan.Certify(context.Background(), 6, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, wantHere := map[string]harness.Status{}, map[string]harness.Status{}
			for _, res := range report.Results() {
				got[res.Name()], wantHere[res.Name()] = res.Status, want[res.Name()]
				if res.Status == harness.StatusFail {
					t.Logf("%s: %s", res.Name(), res.Reason)
					for _, f := range res.Findings {
						t.Logf("  %s", f)
					}
				}
			}
			if diff := cmp.Diff(wantHere, got); diff != "" {
				t.Errorf("outcomes differ from conform run's (-conform +exec):\n%s", diff)
			}
			if !report.Certified {
				t.Errorf("%s", report.Verdict())
			}
			if report.Adapter.Name != "metis-adapter-stdio" || report.Adapter.Protocol != protocol.Version {
				t.Errorf("report names adapter %+v; want the shim's ready identity", report.Adapter)
			}
		})
	}
	if lines.n == 0 || len(lines.errs) > 0 {
		t.Errorf("%d lines written; invalid ones: %v", lines.n, lines.errs)
	}
}

// everyNth returns every nth of ids, from the first.
func everyNth(ids []string, n int) []string {
	var out []string
	for i := 0; i < len(ids); i += n {
		out = append(out, ids[i])
	}
	return out
}
