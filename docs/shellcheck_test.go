package docs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/shlex"
)

// commands are the repository's commands a docs command line may name,
// as `go run ./cmd/NAME`, `go run github.com/metis-llm/metis/cmd/NAME`,
// `./NAME` or `NAME`.
var commands = []string{"conform", "record", "adapter-stdio", "reprice"}

// invocation is one command line of a metis command the docs show.
type invocation struct {
	where  string
	bin    string
	args   []string
	inline bool // an inline code span: a mention, whose flags may lack their values
}

// shellCheck collects what a shell block asks of the repository.
type shellCheck struct {
	top     map[string]bool
	targets map[string]bool // the Makefile's targets
	calls   []invocation
	errs    []string
}

var (
	envRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	targetRE = regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+):`)
)

// makeTargets returns the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range targetRE.FindAllStringSubmatch(string(src), -1) {
		out[m[1]] = true
	}
	return out
}

// logicalLines joins the lines a trailing backslash continues and
// returns each with the line (in the docs file) it starts on.
func logicalLines(b block) []span {
	var out []span
	var cur strings.Builder
	start := 0
	for i, l := range strings.Split(b.text, "\n") {
		if cur.Len() == 0 {
			start = b.line + 1 + i
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(l)
		if strings.TrimSpace(cur.String()) != "" {
			out = append(out, span{line: start, text: cur.String()})
		}
		cur.Reset()
	}
	return out
}

// line checks one command line: the commands it runs exist (a package
// directory, a Makefile target), the paths it names exist, and a metis
// command is kept to be run with --help appended, which parses its flags.
func (s *shellCheck) line(where, text string, inline bool) {
	words, err := shlex.Split(text)
	if err != nil {
		s.errorf(where, "cannot split the command line: %v", err)
		return
	}
	for len(words) > 0 && envRE.MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return
	}
	if bin, ok := s.binary(words); ok {
		n := 1
		if words[0] == "go" {
			n = 3
		}
		s.calls = append(s.calls, invocation{where: where, bin: bin, args: words[n:], inline: inline})
		if !inline {
			s.paths(where, words[n:])
		}
		return
	}
	switch words[0] {
	case "make":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") && !s.targets[w] {
				s.errorf(where, "make %s: the Makefile has no such target", w)
			}
		}
		return
	case "go":
		if len(words) < 2 {
			s.errorf(where, "go without a command")
			return
		}
		for _, w := range words[2:] {
			pkg, _, _ := strings.Cut(w, "@")
			if p, ok := strings.CutPrefix(pkg, module+"/"); ok {
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					s.errorf(where, "%s: no such package in the module", pkg)
				}
			}
		}
		if words[1] == "run" && len(words) > 2 && !isMainPackage(words[2]) {
			s.errorf(where, "go run %s: not a command of the repository", words[2])
			return
		}
	}
	if !inline {
		s.paths(where, words[1:])
	}
}

// binary returns the metis command a command line runs, if it runs one.
func (s *shellCheck) binary(words []string) (string, bool) {
	w := words[0]
	if w == "go" && len(words) > 2 && words[1] == "run" {
		w = words[2]
		for _, p := range []string{"./cmd/", module + "/cmd/"} {
			if b, ok := strings.CutPrefix(w, p); ok && slices.Contains(commands, b) {
				return b, true
			}
		}
		return "", false
	}
	w = strings.TrimPrefix(w, "./")
	return w, slices.Contains(commands, w)
}

// outputFlags take a path the command writes, which need not exist.
var outputFlags = []string{"-o", "--out", "--report-dir"}

// paths checks the words that name repository paths; a flag's value is
// checked too, and the words of a quoted command (--exec "python3 …").
func (s *shellCheck) paths(where string, words []string) {
	for i, w := range words {
		if i > 0 && slices.Contains(outputFlags, words[i-1]) {
			continue
		}
		if f, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(f, "-") {
			w = v
		}
		inner := []string{w}
		if strings.Contains(w, " ") {
			inner, _ = shlex.Split(w)
		}
		for _, p := range inner {
			if strings.Contains(p, "://") || strings.ContainsAny(p, "<>…$~") {
				continue
			}
			if err := checkPath(p, s.top); err != "" {
				s.errorf(where, "%s: %s", p, err)
			}
		}
	}
}

func (s *shellCheck) errorf(where, format string, args ...any) {
	s.errs = append(s.errs, where+": "+fmt.Sprintf(format, args...))
}

// buildInto builds the repository's commands into dir and returns what
// went wrong, or "".
func buildInto(dir string) string {
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, c := range commands {
		args = append(args, "./cmd/"+c)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return ""
}

// parseFlags runs a command line with --help appended, twice: the command
// parses every flag before it looks at --help, so it prints its usage and
// exits 0 only when each flag exists and its value has the flag's type.
// (The second --help is there for a flag whose value the line leaves
// out, which takes the first as its value: the command still only prints
// its usage, and never runs.)
func parseFlags(bindir string, c invocation) string {
	if _, err := runHelp(bindir, c.bin, append(slices.Clone(c.args), "--help", "--help")); err != nil {
		return fmt.Sprintf("%s: %s %s: %v", c.where, c.bin, strings.Join(c.args, " "), err)
	}
	return ""
}

// runHelp runs a command that should print its usage and returns it.
func runHelp(bindir, bin string, args []string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bindir, bin), args...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil && strings.HasPrefix(stdout.String(), "usage:") {
		return stdout.String(), nil
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
	if msg == "" {
		msg = "it did not print its usage"
	}
	return "", fmt.Errorf("%v: %s", err, msg)
}

// usageFlagRE reads the flags a usage text lists: "  -p, --parallel N".
var usageFlagRE = regexp.MustCompile(`(?m)^\s+(?:-(\w), )?--([\w-]+)`)

// subcommand returns the leading words of args that name a subcommand of
// bin: conform's, "report merge", record's "import".
func subcommand(bin string, args []string) []string {
	switch {
	case bin == "conform" && len(args) > 1 && args[0] == "report":
		return args[:2]
	case bin == "conform" && len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		return args[:1]
	case bin == "record" && len(args) > 0 && args[0] == "import":
		return args[:1]
	}
	return nil
}

// mentionFlags checks an inline mention of a command: every flag it names
// is one its usage lists. Values are not checked: prose names flags
// without them (`conform run --skip`).
func mentionFlags(bindir string, c invocation, usages map[string]map[string]bool) string {
	sub := subcommand(c.bin, c.args)
	key := strings.Join(append([]string{c.bin}, sub...), " ")
	flags, ok := usages[key]
	if !ok {
		out, err := runHelp(bindir, c.bin, append(slices.Clone(sub), "--help"))
		if err != nil {
			return fmt.Sprintf("%s: %s --help: %v", c.where, key, err)
		}
		flags = map[string]bool{}
		for _, m := range usageFlagRE.FindAllStringSubmatch(out, -1) {
			if m[1] != "" {
				flags["-"+m[1]] = true
			}
			flags["--"+m[2]] = true
		}
		usages[key] = flags
	}
	var bad []string
	for _, w := range c.args[len(sub):] {
		name, _, _ := strings.Cut(w, "=")
		if strings.HasPrefix(name, "-") && !flags[name] {
			bad = append(bad, name)
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("%s: %s has no flag %s", c.where, key, strings.Join(bad, ", "))
	}
	return ""
}

// inlineCommandRE finds the inline code spans that are command lines of
// the repository's commands or of make.
var inlineCommandRE = regexp.MustCompile(`^(go run (\./cmd/|` + regexp.QuoteMeta(module) + `/cmd/)|(\./)?(conform|record|reprice|adapter-stdio) [a-z-]|make [a-z])`)

// TestShellBlocks checks every command line of the docs' sh blocks, and
// the inline code spans that are command lines (those with placeholders
// such as [ID-GLOB] or … aside): metis's commands parse their flags (run
// with --help appended), make targets exist, go commands name packages of
// the module, and every repository path a command names exists.
func TestShellBlocks(t *testing.T) {
	s := &shellCheck{top: topLevel(t), targets: makeTargets(t)}
	ps := pages(t)
	nblocks := 0
	for _, b := range blocksOf(ps, "sh") {
		nblocks++
		for _, l := range logicalLines(b) {
			s.line(fmt.Sprintf("%s:%d", b.file, l.line), l.text, false)
		}
	}
	if nblocks < 5 {
		t.Fatalf("found %d sh blocks; the block reader finds too few", nblocks)
	}
	for _, p := range ps {
		for _, c := range p.code {
			if inlineCommandRE.MatchString(c.text) && !strings.ContainsAny(c.text, "[]…<>|") {
				s.line(fmt.Sprintf("%s:%d", p.file, c.line), c.text, true)
			}
		}
	}
	for _, e := range s.errs {
		t.Error(e)
	}
	if len(s.calls) < 20 {
		t.Fatalf("found %d command lines of metis's commands; the reader finds too few", len(s.calls))
	}
	bindir := binaries(t)
	usages := map[string]map[string]bool{}
	for _, c := range s.calls {
		e := ""
		if c.inline {
			e = mentionFlags(bindir, c, usages)
		} else {
			e = parseFlags(bindir, c)
		}
		if e != "" {
			t.Error(e)
		}
	}
}

// isMainPackage reports whether a go run argument ("./examples/agent") is a
// directory of the repository holding a command (package main), such as an
// example program.
func isMainPackage(arg string) bool {
	dir, ok := strings.CutPrefix(arg, "./")
	if !ok {
		return false
	}
	files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err == nil && regexp.MustCompile(`(?m)^package main$`).Match(b) {
			return true
		}
	}
	return false
}
