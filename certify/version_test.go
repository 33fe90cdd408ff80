package certify_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/certify"
)

// TestMetisInAThirdPartysTestBinary: a third party's go test, run in its
// own git repository with metis as a dependency (here replaced by this
// checkout), reports metis's version, never the revision of the
// repository around it. The module builds offline from the module cache.
func TestMetisInAThirdPartysTestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a third party's test binary")
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	root, err := adaptertest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/certifier\n\ngo 1.26.0\n\nrequire github.com/metis-llm/metis v0.0.0-00010101000000-000000000000\n\nreplace github.com/metis-llm/metis => " + root + "\n",
		"go.sum": string(sum),
		"metis_test.go": `package certifier

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/metis-llm/metis/certify"
)

func TestPrintMetis(t *testing.T) {
	data, _ := json.Marshal(certify.Metis())
	fmt.Printf("METIS %s\n", data)
}
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(gitPath, "init", "-q")
	run(gitPath, "add", ".")
	run(gitPath, "commit", "-q", "-m", "a third party's adapter")
	head := strings.TrimSpace(run(gitPath, "rev-parse", "HEAD"))
	run("go", "mod", "tidy")
	out := run("go", "test", "-count=1", "-v", "-run", "TestPrintMetis", ".")

	_, line, ok := strings.Cut(out, "METIS ")
	if !ok {
		t.Fatalf("no METIS line in\n%s", out)
	}
	line, _, _ = strings.Cut(line, "\n")
	var got certify.MetisInfo
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if strings.Contains(head, strings.TrimSuffix(got.Revision, "+modified")) && got.Revision != "" {
		t.Errorf("revision %q is the third party's HEAD %s", got.Revision, head)
	}
	want := certify.MetisInfo{Version: "(devel)", GoVersion: got.GoVersion}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metis info of a replaced dependency (-want +got):\n%s", diff)
	}
}
