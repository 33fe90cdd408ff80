package harness_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsFollowTheRun: the harness's packages import one way, down
// the flow of a run (report → runner → check → scenario): the scenario
// format knows nothing of checking or running, the checks nothing of
// running or reporting. Imports are followed through every metis package
// they reach.
func TestImportsFollowTheRun(t *testing.T) {
	const module = "github.com/metis-llm/metis/"
	for pkg, above := range map[string][]string{
		"harness/scenario": {"harness", "harness/check", "harness/report", "harness/record", "session"},
		"harness/check":    {"harness", "harness/report", "harness/record", "session"},
	} {
		seen := map[string]bool{}
		var walk func(dir string, path []string)
		walk = func(dir string, path []string) {
			if seen[dir] {
				return
			}
			seen[dir] = true
			for _, a := range above {
				if dir == a {
					t.Errorf("%s imports %s, which sits above it in a run's flow (%s)", pkg, a, strings.Join(path, " → "))
				}
			}
			for _, imp := range imports(t, filepath.Join("..", filepath.FromSlash(dir))) {
				if rest, ok := strings.CutPrefix(imp, module); ok {
					walk(rest, append(path[:len(path):len(path)], rest))
				}
			}
		}
		walk(pkg, []string{pkg})
		if len(seen) < 2 {
			t.Errorf("%s: found no imports to follow", pkg)
		}
	}
}

// imports returns the import paths of the non-test Go files in dir.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
