package shim

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Group is one class of expected failures: an id that README.md defines
// with its evidence, the library it applies to ("*" for both), and the
// pattern a listed reason of that class matches.
type Group struct {
	ID      string
	Library string
	Pattern *regexp.Regexp
	Line    int
}

// Groups is the triage of the expected-failure lists: every listed
// reason must match a group, so that no reason stands untriaged.
type Groups []Group

// ParseGroups reads a groups file, one group a line:
//
//	<group id> TAB <library or *> TAB <regular expression>
//
// Blank lines and lines starting with # are comments. The expression
// is Go's RE2 syntax, matched anywhere in the reason unless anchored.
// Errors name the file and line.
func ParseGroups(r io.Reader, name string) (Groups, error) {
	var gs Groups
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want <group id> TAB <library or *> TAB <pattern>, got %d field(s)", name, n, len(f))
		}
		id, lib, pat := strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), f[2]
		switch {
		case !groupID.MatchString(id):
			return nil, fmt.Errorf("%s:%d: group id %q: want lower-case words joined by -", name, n, id)
		case lib == "":
			return nil, fmt.Errorf("%s:%d: group %s names no library (use * for all)", name, n, id)
		case strings.TrimSpace(pat) == "":
			return nil, fmt.Errorf("%s:%d: group %s has no pattern", name, n, id)
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: group %s: %w", name, n, id, err)
		}
		gs = append(gs, Group{ID: id, Library: lib, Pattern: re, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return gs, nil
}

var groupID = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Match returns the first group of library whose pattern matches
// reason, or nil.
func (gs Groups) Match(library, reason string) *Group {
	for i := range gs {
		g := &gs[i]
		if (g.Library == "*" || g.Library == library) && g.Pattern.MatchString(reason) {
			return g
		}
	}
	return nil
}
