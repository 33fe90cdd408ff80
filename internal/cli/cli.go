// Package cli gives metis's commands (conform and its subcommands,
// record) one help style and one way of reporting bad flags:
//
//	usage: conform run [flags] [ID-GLOB...]
//
//	Replay every scenario × model against the cassettes and check it.
//
//	flags:
//	  -h, --help   show this help
//	  ...
//
// --help prints that to stdout and exits 0; a bad flag prints
// "conform run: <the error>", a blank line and the same usage to stderr,
// and exits 2.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// ExitUsage is the exit status of a usage error.
const ExitUsage = 2

// Command is a command line: its name ("conform run"), the operands it
// takes after the flags ("[ID-GLOB...]"), what it does, and its flags.
type Command struct {
	Name     string
	Operands string
	Summary  string
	// Notes, when set, is printed after the flags (examples, exit codes).
	Notes string
	*pflag.FlagSet
	help bool
}

// New returns a Command whose flag set reports errors instead of
// printing them, with -h/--help defined.
func New(name, operands, summary string) *Command {
	c := &Command{Name: name, Operands: operands, Summary: summary, FlagSet: pflag.NewFlagSet(name, pflag.ContinueOnError)}
	c.SetOutput(io.Discard)
	c.Usage = func() {}
	c.BoolVarP(&c.help, "help", "h", false, "show this help")
	c.SortFlags = true
	return c
}

// PrintUsage writes the usage text to w.
func (c *Command) PrintUsage(w io.Writer) {
	line := "usage: " + c.Name
	if c.HasAvailableFlags() {
		line += " [flags]"
	}
	if c.Operands != "" {
		line += " " + c.Operands
	}
	fmt.Fprintf(w, "%s\n\n%s\n\nflags:\n%s", line, c.Summary, c.FlagUsages())
	if c.Notes != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.Notes, "\n"))
	}
}

// Parse parses args. When ok is false the command is over and code is its
// exit status: 0 after --help (usage on stdout), ExitUsage after a bad
// flag (the error and the usage on stderr).
func (c *Command) Parse(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	err := c.FlagSet.Parse(args)
	switch {
	case errors.Is(err, pflag.ErrHelp) || (err == nil && c.help):
		c.PrintUsage(stdout)
		return 0, false
	case err != nil:
		return c.Fail(stderr, err.Error()), false
	}
	return 0, true
}

// Fail prints "name: msg", a blank line and the usage to stderr, and
// returns ExitUsage: for usage errors found after parsing (a missing
// argument, a malformed value).
func (c *Command) Fail(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%s: %s\n\n", c.Name, msg)
	c.PrintUsage(stderr)
	return ExitUsage
}
