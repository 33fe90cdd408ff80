package certify

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/internal/certifytest"
)

// testReport certifies a broken Anthropic adapter on two scenarios: one
// passes, one fails.
func testReport(t testing.TB) *Report {
	t.Helper()
	target := Target{Provider: "anthropic", Name: "broken-anthropic", Version: "0.0.1", Kind: "go",
		New: func(c adapters.Config) (adapters.Adapter, error) {
			a, err := providers.Factories()["anthropic"](c)
			if err != nil {
				return nil, err
			}
			return certifytest.DropToolEnd{Adapter: a}, nil
		}}
	plan, err := NewPlan(target, Options{IDs: []string{"basic/plain-text", "tools/single-round-trip"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) != 2 {
		t.Fatalf("planned %d runs, want 2", len(plan.Runs))
	}
	r, err := plan.Certify(context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Reproduce = "go test ./certify"
	return r
}

func TestReportOfABrokenAdapter(t *testing.T) {
	r := testReport(t)
	if r.Certified {
		t.Errorf("certified; want not certified")
	}
	if diff := cmp.Diff(Counts{Passed: 1, Failed: 1}, r.Counts); diff != "" {
		t.Fatalf("counts (-want +got):\n%s", diff)
	}
	var failed *RunResult
	for i := range r.Runs {
		if r.Runs[i].Status == harness.StatusFail {
			failed = &r.Runs[i]
		}
	}
	if failed == nil || failed.Scenario != "tools/single-round-trip" || failed.FirstFailure == nil || failed.FirstFailure.Check != check.CheckStream {
		t.Fatalf("failed run %+v; want tools/single-round-trip failing its stream_invariants check", failed)
	}
	if got := r.Verdict(); got != "NOT CERTIFIED: 1 of 2 runs failed" {
		t.Errorf("Verdict() = %q", got)
	}
	statuses := map[string]string{}
	for _, p := range r.Profiles {
		statuses[p.Name] = p.Status
	}
	wantStatuses := map[string]string{
		ProfileCore: ProfileCertified, ProfileTools: ProfileFailed, // basic/plain-text, tools/single-round-trip
		ProfileStreaming: ProfileNotCovered, ProfileThinking: ProfileNotCovered, ProfileErrors: ProfileNotCovered, ProfileSwap: ProfileNotCovered,
	}
	if diff := cmp.Diff(wantStatuses, statuses); diff != "" {
		t.Errorf("profile statuses (-want +got):\n%s", diff)
	}
	if _, ok := r.Capabilities["anthropic:claude-sonnet-4-6"]; !ok {
		t.Errorf("capabilities lack anthropic:claude-sonnet-4-6: %v", r.Capabilities)
	}
}

// ownSuiteLabel is what Verify says of a bundle certified against the
// builtin suite: its published version, or unreleased (dev) between
// releases.
func ownSuiteLabel(t *testing.T) (label string, published bool) {
	t.Helper()
	info, err := Builtin().Info()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Published() {
		if p.Version == info.Version {
			return "published suite " + p.Version + " (" + p.Date + ")", true
		}
	}
	return OwnDevSuite, false
}

func TestBundleRoundTrip(t *testing.T) {
	r := testReport(t)
	wantSuite, published := ownSuiteLabel(t)
	for _, name := range []string{"bundle", "bundle.tar.gz"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			digest, err := WriteBundle(p, r)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Verify(p, VerifyOptions{Digest: digest})
			if err != nil {
				t.Fatal(err)
			}
			if v.Report.Adapter.Name != "broken-anthropic" || len(v.Report.Runs) != 2 || v.Suite != wantSuite {
				t.Errorf("verified report: adapter %q, %d runs, suite %q, want %q", v.Report.Adapter.Name, len(v.Report.Runs), v.Suite, wantSuite)
			}
			if _, err := Verify(p, VerifyOptions{Published: true}); published != (err == nil) || !published && !strings.Contains(err.Error(), "not a published suite version (an unreleased development suite") {
				t.Errorf("Verify with Published of a bundle of %s: %v", wantSuite, err)
			}
			if _, err := Verify(p, VerifyOptions{Digest: "sha256:" + strings.Repeat("0", 64)}); err == nil || !strings.Contains(err.Error(), "digest") {
				t.Errorf("Verify accepted a wrong digest: %v", err)
			}
			// Writing again replaces the bundle.
			if _, err := WriteBundle(p, r); err != nil {
				t.Fatalf("rewriting: %v", err)
			}
			if _, err := Verify(p, VerifyOptions{}); err != nil {
				t.Fatalf("after rewriting: %v", err)
			}
		})
	}
}

// Changing any byte of a bundle, directory or archive, fails Verify.
// The bundle is checked in memory; reading it from disk is what the
// round-trip test covers.
func TestVerifyFailsOnAnyChangedByte(t *testing.T) {
	r := testReport(t)
	files, err := bundleFiles(r)
	if err != nil {
		t.Fatal(err)
	}
	verifyFiles := func(files map[string][]byte) error {
		v := &verifier{bundle: "test"}
		_, err := v.check(files, digestOf(files[BundleManifest]), VerifyOptions{})
		return err
	}
	if err := verifyFiles(files); err != nil {
		t.Fatalf("the bundle does not verify: %v", err)
	}
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		if len(files) < 6 {
			t.Fatalf("the bundle has %d files, want evidence too", len(files))
		}
		for name, data := range files {
			for i := range data {
				changed := maps.Clone(files)
				changed[name] = append([]byte(nil), data...)
				changed[name][i] ^= 0xff
				if err := verifyFiles(changed); err == nil {
					t.Fatalf("changing byte %d of %s went unnoticed", i, name)
				}
			}
		}
	})
	t.Run("archive", func(t *testing.T) {
		t.Parallel()
		data, err := packArchive(files)
		if err != nil {
			t.Fatal(err)
		}
		verifyArchive := func(data []byte) error {
			v := &verifier{bundle: "test.tar.gz"}
			_, err := v.check(v.unpack(data), digestOf(data), VerifyOptions{})
			return err
		}
		if err := verifyArchive(data); err != nil {
			t.Fatalf("the archive does not verify: %v", err)
		}
		for i := range data {
			changed := append([]byte(nil), data...)
			changed[i] ^= 0xff
			if err := verifyArchive(changed); err == nil {
				t.Fatalf("changing byte %d of %d of the archive went unnoticed", i, len(data))
			}
		}
	})
}

func TestVerifyNamesWhatIsWrong(t *testing.T) {
	r := testReport(t)
	for _, tc := range []struct {
		name   string
		change func(dir string) error
		want   string
	}{
		{"extra file", func(dir string) error { return os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi"), 0o644) }, "notes.txt is not in the manifest"},
		{"missing file", func(dir string) error { return os.Remove(filepath.Join(dir, BundleJUnit)) }, "junit.xml is missing"},
		{"edited report", func(dir string) error {
			p := filepath.Join(dir, BundleReport)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, []byte(strings.Replace(string(data), `"certified": false`, `"certified": true `, 1)), 0o644)
		}, "report.json was changed"},
		{"no manifest", func(dir string) error { return os.Remove(filepath.Join(dir, BundleManifest)) }, "MANIFEST.sha256 is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			if _, err := WriteBundle(dir, r); err != nil {
				t.Fatal(err)
			}
			if err := tc.change(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Verify(dir, VerifyOptions{})
			var ve *VerifyError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify: %v; want a VerifyError containing %q", err, tc.want)
			}
		})
	}
}

// Verify never panics on an archive, whatever its bytes.
func FuzzVerifyArchive(f *testing.F) {
	files := map[string][]byte{
		BundleReport:                 []byte(`{"schema":"metis.certification/v1"}` + "\n"),
		BundleJUnit:                  []byte("<testsuites tests=\"0\"></testsuites>\n"),
		BundleSummary:                []byte("# metis certification: x\n"),
		"evidence/a/b/c/events.json": []byte("[]\n"),
	}
	files[BundleManifest] = manifest(files)
	good, err := packArchive(files)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		v := &verifier{bundle: "fuzz.tar.gz"}
		v.check(v.unpack(data), digestOf(data), VerifyOptions{})
	})
}

// Verify never panics on a bundle's files, whatever their bytes; the
// manifest is made to match, so the report and JUnit checks run.
func FuzzVerifyFiles(f *testing.F) {
	real, err := bundleFiles(testReport(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real[BundleReport], real[BundleJUnit])
	f.Add([]byte(`{}`), []byte(`<x`))
	f.Fuzz(func(t *testing.T, report, junit []byte) {
		files := map[string][]byte{BundleReport: report, BundleJUnit: junit, BundleSummary: []byte("# metis certification: x\n")}
		files[BundleManifest] = manifest(files)
		v := &verifier{bundle: "fuzz"}
		v.check(files, digestOf(files[BundleManifest]), VerifyOptions{})
	})
}
