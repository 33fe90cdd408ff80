package shim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Known is a library's list of expected failures on one provider: run
// name ("<scenario-id>/<model>", as certify.Run.Name gives it) → why it
// fails. It is kept in testdata/known/<provider>.txt, one run a line:
//
//	<run name> TAB <reason>
//
// Blank lines and lines starting with # are comments. README.md groups
// the reasons and gives each group's evidence.
type Known map[string]string

// ParseKnown reads a list written by WriteKnown (or by hand). Errors name
// the file and line.
func ParseKnown(r io.Reader, name string) (Known, error) {
	k := Known{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		run, reason, ok := strings.Cut(line, "\t")
		run, reason = strings.TrimSpace(run), strings.TrimSpace(reason)
		switch {
		case !ok || run == "":
			return nil, fmt.Errorf("%s:%d: want <run name> TAB <reason>, got %q", name, n, line)
		case reason == "":
			return nil, fmt.Errorf("%s:%d: run %s has no reason", name, n, run)
		case k[run] != "":
			return nil, fmt.Errorf("%s:%d: run %s listed twice", name, n, run)
		}
		k[run] = reason
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return k, nil
}

// WriteKnown renders k sorted by run name under a header comment.
func WriteKnown(k Known, header string) []byte {
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + l + "\n")
	}
	runs := make([]string, 0, len(k))
	for r := range k {
		runs = append(runs, r)
	}
	sort.Strings(runs)
	for _, r := range runs {
		reason := strings.Join(strings.Fields(k[r]), " ")
		fmt.Fprintf(&b, "%s\t%s\n", r, reason)
	}
	return b.Bytes()
}
