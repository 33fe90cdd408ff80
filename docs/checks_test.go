package docs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/scenario"
)

// brokenPages reads testdata/broken/*.md: pages whose every block, link
// and path is wrong in one way, named by a `want:` line the checks must
// report — proof that each check can fail.
func brokenPages(t *testing.T) []page {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "broken", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/broken pages: %v", err)
	}
	var out []page
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsePage(filepath.ToSlash(f), string(src)))
	}
	return out
}

// wants returns, by the line of the block or span each follows, the
// expected errors written in the page as "<!-- want: TEXT -->".
func wants(t *testing.T, file string) map[int]string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for i, l := range strings.Split(string(src), "\n") {
		if w, ok := strings.CutPrefix(strings.TrimSpace(l), "<!-- want: "); ok {
			out[i+2] = strings.TrimSuffix(w, " -->") // names the next line
		}
	}
	return out
}

// expect checks that each want line has exactly the errors the checks
// reported for it, by substring.
func expect(t *testing.T, file string, got map[int][]string) {
	t.Helper()
	ws := wants(t, file)
	if len(ws) == 0 {
		t.Fatalf("%s has no want lines", file)
	}
	for line, w := range ws {
		errs := got[line]
		if !strings.Contains(strings.Join(errs, "\n"), w) {
			t.Errorf("%s:%d: want an error containing %q, got %q", file, line, w, errs)
		}
		delete(got, line)
	}
	for line, errs := range got {
		if len(errs) == 0 {
			continue
		}
		t.Errorf("%s:%d: unexpected errors %q", file, line, errs)
	}
}

func TestBrokenLinksAndPaths(t *testing.T) {
	file := filepath.Join("testdata", "broken", "links.md")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p := parsePage("docs/broken.md", string(src)) // as if it were a page of docs/
	byFile := map[string]page{p.file: p}
	for _, q := range pages(t) {
		byFile[q.file] = q
	}
	top := topLevel(t)
	fams := scenarioFamilies(t)
	got := map[int][]string{}
	for _, l := range p.links {
		if e := checkLink(p, l.text, byFile); e != "" {
			got[l.line] = append(got[l.line], e)
		}
	}
	for _, c := range p.code {
		if e := checkPathSpan(c.text, top, fams); e != "" {
			got[c.line] = append(got[c.line], e)
		}
	}
	expect(t, file, got)
}

func TestBrokenGoBlocks(t *testing.T) {
	file := filepath.Join("testdata", "broken", "go.md")
	p := brokenPage(t, file)
	c := goChecker1(t)
	got := map[int][]string{}
	for _, b := range p.blocks {
		got[b.line] = c.check(b)
	}
	expect(t, file, got)
}

func TestBrokenDataBlocks(t *testing.T) {
	file := filepath.Join("testdata", "broken", "data.md")
	p := brokenPage(t, file)
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	cols, err := scenario.DefaultColumns()
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]string{}
	for _, b := range p.blocks {
		switch b.lang {
		case "yaml":
			got[b.line] = checkYAML(b, reg, cols)
		case "json":
			got[b.line] = checkJSON(b)
		}
	}
	expect(t, file, got)
}

func TestBrokenShellBlocks(t *testing.T) {
	file := filepath.Join("testdata", "broken", "sh.md")
	p := brokenPage(t, file)
	s := &shellCheck{top: topLevel(t), targets: makeTargets(t)}
	for _, b := range p.blocks {
		for _, l := range logicalLines(b) {
			s.line(p.file+":"+strconv.Itoa(b.line), l.text, false) // by block: the want line precedes it
		}
	}
	bindir := binaries(t)
	for _, c := range s.calls {
		if e := parseFlags(bindir, c); e != "" {
			s.errs = append(s.errs, e)
		}
	}
	got := map[int][]string{}
	for _, e := range s.errs {
		// file:line: message
		rest := strings.TrimPrefix(e, p.file+":")
		n, _, _ := strings.Cut(rest, ":")
		line, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("an error without its line: %s", e)
		}
		got[line] = append(got[line], e)
	}
	expect(t, file, got)
}

// brokenPage reads one page of testdata/broken.
func brokenPage(t *testing.T, file string) page {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return parsePage(filepath.ToSlash(file), string(src))
}

var (
	binOnce sync.Once
	binDir  string
	binErr  string
)

// binaries builds the repository's commands once per test binary, into
// a directory removed when the tests end (TestMain).
func binaries(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "metis-docs-bin-")
		if err != nil {
			binErr = err.Error()
			return
		}
		binDir = dir
		binErr = buildInto(dir)
	})
	if binErr != "" {
		t.Fatal(binErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
