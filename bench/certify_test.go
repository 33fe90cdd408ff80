package bench

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// certifyRun matches the line `conform certify` prints per run.
var certifyRun = regexp.MustCompile(`(?m)^(ok|FAIL|skip) +\S+ \[`)

// BenchmarkCertify certifies metis's Anthropic adapter on the basic/
// scenarios with the built `conform` (--pace 0: no delay between
// server-sent events), two ways: via=builtin, the adapter in conform's
// process, its HTTP going to the replay server `conform serve` is
// (harness/replay's Server, on loopback); via=stdio, the stdio shim
// cmd/adapter-stdio as the --exec adapter, started once per run and
// spoken to over the stdio protocol, its HTTP to the same server. It
// reports the wall time and the CPU time of conform and its children
// (cpu-ns/op) per certified run: what a third party's certification
// costs per scenario run beyond its own adapter.
func BenchmarkCertify(b *testing.B) {
	if testing.Short() {
		b.Skip("builds conform and adapter-stdio")
	}
	dir := b.TempDir()
	conform, stdio := filepath.Join(dir, "conform"), filepath.Join(dir, "adapter-stdio")
	for bin, pkg := range map[string]string{conform: "./cmd/conform", stdio: "./cmd/adapter-stdio"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Dir = ".." // metis's module, with its own go.mod
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	for _, via := range []struct {
		name string
		args []string
	}{
		{"builtin", nil},
		{"stdio", []string{"--exec", stdio}},
	} {
		b.Run("via="+via.name, func(b *testing.B) {
			args := append([]string{"certify", "--provider", "anthropic", "--pace", "0", "--suite", "..", "--out", filepath.Join(b.TempDir(), "bundle")}, via.args...)
			args = append(args, "basic/")
			runs := 0
			cpu := childCPU()
			for b.Loop() {
				var out bytes.Buffer
				cmd := exec.Command(conform, args...)
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					b.Fatalf("conform %v: %v\n%s", args, err, out.String())
				}
				runs = len(certifyRun.FindAll(out.Bytes(), -1))
				if runs == 0 {
					b.Fatalf("conform %v certified no run:\n%s", args, out.String())
				}
			}
			b.ReportMetric(float64(childCPU()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*runs), "ns/run")
			b.ReportMetric(float64(childCPU()-cpu)/float64(b.N*runs), "cpu-ns/run")
			b.ReportMetric(float64(runs), "runs/op")
		})
	}
}
