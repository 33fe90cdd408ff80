package shim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// groupsFile is the module's triage of its expected failures.
const groupsFile = "../../groups.txt"

// shims maps each shim package of the module to its library's name, as
// groups.txt names it.
var shims = map[string]string{"fantasyshim": "fantasy", "langchaingoshim": "langchaingo"}

// TestListsTriaged: every reason in every testdata/known list matches a
// group of groups.txt for its library, every group is defined in
// README.md (as **`id`**) and matches some listed reason. An untriaged
// reason — a new failure THIRDPARTY_UPDATE wrote — fails here until it
// is put in a group with its evidence.
func TestListsTriaged(t *testing.T) {
	f, err := os.Open(groupsFile)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := ParseGroups(f, groupsFile)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]int{}
	lists := 0
	for dir, lib := range shims {
		paths, err := filepath.Glob(filepath.Join("..", "..", dir, "testdata", "known", "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			lists++
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			known, err := ParseKnown(f, path)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for run, reason := range known {
				g := groups.Match(lib, reason)
				if g == nil {
					t.Errorf("%s: %s: the reason matches no group of %s: triage it (a group with its evidence in README.md)\n\t%s", path, run, groupsFile, reason)
					continue
				}
				used[g.ID]++
			}
		}
	}
	if lists == 0 {
		t.Fatal("no expected-failure list found")
	}
	for _, g := range groups {
		if !strings.Contains(string(readme), "**`"+g.ID+"`**") {
			t.Errorf("%s:%d: group %s is not defined in README.md (as **`%s`** with its evidence)", groupsFile, g.Line, g.ID, g.ID)
		}
	}
	seen := map[string]bool{}
	for _, g := range groups {
		if seen[g.ID] {
			continue
		}
		seen[g.ID] = true
		if used[g.ID] == 0 {
			t.Errorf("%s:%d: group %s matches no listed reason: remove it", groupsFile, g.Line, g.ID)
		}
	}
}

func TestParseGroups(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		err      string
	}{
		{"empty", "", 0, ""},
		{"comments", "# x\n\n", 0, ""},
		{"one", "served-model\t*\tserved_model: want\n", 1, ""},
		{"two fields", "served-model\tserved_model\n", 0, "x.txt:1: want <group id> TAB"},
		{"bad id", "# c\nServed Model\t*\tx\n", 0, `x.txt:2: group id "Served Model"`},
		{"no library", "a\t\tx\n", 0, "x.txt:1: group a names no library"},
		{"no pattern", "a\t*\t \n", 0, "x.txt:1: group a has no pattern"},
		{"bad pattern", "a\t*\t(\n", 0, "x.txt:1: group a: error parsing regexp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs, err := ParseGroups(strings.NewReader(tc.in), "x.txt")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || len(gs) != tc.n {
				t.Fatalf("got %d group(s), %v; want %d", len(gs), err, tc.n)
			}
		})
	}
	gs, err := ParseGroups(strings.NewReader("a\tfantasy\t^x\nb\t*\tx\n"), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if g := gs.Match("fantasy", "xy"); g == nil || g.ID != "a" {
		t.Errorf("fantasy xy: got %v, want group a", g)
	}
	if g := gs.Match("langchaingo", "xy"); g == nil || g.ID != "b" {
		t.Errorf("langchaingo xy: got %v, want group b (a is fantasy's)", g)
	}
	if g := gs.Match("fantasy", "yy"); g != nil {
		t.Errorf("fantasy yy: got group %s, want none", g.ID)
	}
}

func FuzzParseGroups(f *testing.F) {
	f.Add("a\t*\tx\n# c\nb-c\tfantasy\t^(y|z)$\n")
	f.Add("a\t*\t(\n")
	f.Fuzz(func(t *testing.T, in string) {
		gs, err := ParseGroups(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, g := range gs {
			if g.Pattern == nil || g.ID == "" {
				t.Fatalf("a parsed group without id or pattern: %+v", g)
			}
			_ = gs.Match(g.Library, g.ID)
		}
	})
}
