// Package docs holds metis's documentation (the Markdown files beside
// this one) and, in its tests, the checks that keep it true: every link
// resolves, every path it names exists, and every code block is checked
// by what it is — Go type-checked against the module, scenarios linted as
// `conform validate` lints them, models.yaml loaded by the registry, JSON
// decoded, and each shell command's flags parsed by the command itself.
// README.md in this directory states the conventions.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = ".."

// pages reads README.md and every Markdown file under docs/ (testdata
// left out).
func pages(t *testing.T) []page {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, filepath.ToSlash(filepath.Join("docs", p)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []page
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsePage(f, string(src)))
	}
	if len(out) < 10 {
		t.Fatalf("found %d Markdown files; the docs are missing", len(out))
	}
	return out
}

// blocksOf returns the pages' fenced blocks in the languages given.
func blocksOf(ps []page, langs ...string) []block {
	var out []block
	for _, p := range ps {
		for _, b := range p.blocks {
			if slices.Contains(langs, b.lang) {
				out = append(out, b)
			}
		}
	}
	return out
}

// TestLanguages holds every fenced block to a language the tests check,
// so that a block cannot escape them by its info string.
func TestLanguages(t *testing.T) {
	known := []string{"go", "yaml", "json", "sh", "text", ""}
	for _, p := range pages(t) {
		for _, b := range p.blocks {
			if !slices.Contains(known, b.lang) {
				t.Errorf("%s: a ```%s block: the docs tests check go, yaml, json and sh blocks; text and bare blocks are listings (docs/README.md)", b.where(), b.lang)
			}
			if b.kind != "" && b.kind != "fragment" {
				t.Errorf("%s: unknown block kind %q after ```%s (only \"fragment\")", b.where(), b.kind, b.lang)
			}
		}
	}
}

// TestLinks resolves every relative link of the docs: the file or
// directory must exist, and a #fragment must be a heading of the
// Markdown file it points into.
func TestLinks(t *testing.T) {
	ps := pages(t)
	byFile := map[string]page{}
	for _, p := range ps {
		byFile[p.file] = p
	}
	n := 0
	for _, p := range ps {
		for _, l := range p.links {
			if err := checkLink(p, l.text, byFile); err != "" {
				t.Errorf("%s:%d: link %s: %s", p.file, l.line, l.text, err)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("checked %d links; the link reader finds too few", n)
	}
}

// checkLink returns what is wrong with one link target, or "".
func checkLink(p page, target string, byFile map[string]page) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, frag, _ := strings.Cut(target, "#")
	path := p.file
	if file != "" {
		path = filepath.ToSlash(filepath.Join(filepath.Dir(p.file), file))
		if strings.HasPrefix(path, "../") {
			return "points outside the repository"
		}
		if _, err := os.Stat(filepath.Join(root, path)); err != nil {
			return "no such file or directory " + path
		}
	}
	if frag == "" {
		return ""
	}
	q, ok := byFile[path]
	if !ok {
		return "a #fragment into " + path + ", which is not a Markdown page of the docs"
	}
	if !q.anchors[frag] {
		return "no heading of " + path + " has the anchor #" + frag
	}
	return ""
}

// TestGoCommentLinks checks that every docs/….md a comment of a Go file,
// a shell script, the Makefile or .ci/run names exists.
func TestGoCommentLinks(t *testing.T) {
	re := regexp.MustCompile(`docs/[a-z0-9/_-]+\.md`)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".sh") || d.Name() == "Makefile" || p == filepath.Join(root, ".ci", "run") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			c := strings.Index(line, "//")
			if !strings.HasSuffix(f, ".go") {
				c = strings.Index(line, "#")
			}
			for _, loc := range re.FindAllStringIndex(line, -1) {
				if c < 0 || loc[0] < c {
					continue // not in a comment: a string, such as a tool input in a test
				}
				m := line[loc[0]:loc[1]]
				if _, err := os.Stat(filepath.Join(root, m)); err != nil {
					t.Errorf("%s:%d: names %s, which does not exist", f, i+1, m)
				}
			}
		}
	}
}

var (
	scenarioIDRE = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9*?.-]*$`)
	lineRefRE    = regexp.MustCompile(`:\d+(:\d+)?$`)
)

// TestPaths checks the repository paths and scenario ids the docs name
// in inline code, and the paths of the listings in bare blocks (the
// package map): each must exist, a glob must match something.
func TestPaths(t *testing.T) {
	top := topLevel(t)
	families := scenarioFamilies(t)
	n := 0
	for _, p := range pages(t) {
		for _, c := range p.code {
			if err := checkPathSpan(c.text, top, families); err != "" {
				t.Errorf("%s:%d: `%s`: %s", p.file, c.line, c.text, err)
			}
			n++
		}
		for _, b := range p.blocks {
			if b.lang != "" && b.lang != "text" {
				continue
			}
			for i, line := range strings.Split(b.text, "\n") {
				f := strings.Fields(line)
				if len(f) == 0 || line[0] == ' ' || !strings.HasSuffix(f[0], "/") {
					continue
				}
				if err := checkPath(f[0], top); err != "" {
					t.Errorf("%s:%d: %s: %s", b.file, b.line+1+i, f[0], err)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("checked %d code spans; the span reader finds too few", n)
	}
}

// checkPathSpan checks an inline code span that names a repository path
// (its first element is a top-level file or directory) or a scenario id
// (its first element is a family under scenarios/); other spans are not
// paths and pass.
func checkPathSpan(s string, top, families map[string]bool) string {
	if strings.ContainsAny(s, " <>…{}$=,'\"") || strings.Contains(s, "://") || !strings.Contains(s, "/") {
		return ""
	}
	s = lineRefRE.ReplaceAllString(s, "")
	first, _, _ := strings.Cut(strings.TrimPrefix(s, "./"), "/")
	switch {
	case top[first]:
		return checkPath(s, top)
	case families[first] && scenarioIDRE.MatchString(s):
		want := s + ".yaml"
		if strings.HasSuffix(s, "/") {
			want = s
		}
		for _, dir := range suiteDirs {
			if checkPath(dir+"/"+want, top) == "" {
				return ""
			}
		}
		return "no scenario of " + strings.Join(suiteDirs, " or ") + " has this id"
	}
	return ""
}

// checkPath returns what is wrong with a repository path, or "".
func checkPath(s string, top map[string]bool) string {
	s = strings.TrimPrefix(s, "./")
	first, _, _ := strings.Cut(s, "/")
	if !top[first] {
		return ""
	}
	full := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(s, "/...")))
	if strings.ContainsAny(s, "*?[") {
		m, err := filepath.Glob(full)
		if err != nil || len(m) == 0 {
			// a scenario glob such as scenarios/faults/stall-* names files without .yaml
			if m2, _ := filepath.Glob(full + ".yaml"); len(m2) > 0 {
				return ""
			}
			return "matches no file"
		}
		return ""
	}
	if _, err := os.Stat(full); err != nil {
		return "no such file or directory"
	}
	return ""
}

// topLevel returns the names at the repository's root, generated
// directories (reports/) aside.
func topLevel(t *testing.T) map[string]bool {
	t.Helper()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	top := map[string]bool{}
	for _, e := range ents {
		if e.Name() != ".git" && e.Name() != "reports" {
			top[e.Name()] = true
		}
	}
	return top
}

// suiteDirs are the scenario directories a scenario id the docs name may
// come from: metis's suite, and the worked example's own.
var suiteDirs = []string{"scenarios", "examples/toyprovider/testdata/scenarios"}

// scenarioFamilies returns the family directories of the suites.
func scenarioFamilies(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, dir := range suiteDirs {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				out[e.Name()] = true
			}
		}
	}
	return out
}
