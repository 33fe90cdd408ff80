// Command reprice recomputes the cost of the messages stored in a session
// database under a named pricing_version (001 §6.4): every message that
// records usage is priced again from its token counts with the table's
// rates, and its cost_usd and pricing_version are rewritten; its content
// and everything else stay byte for byte. The work is done by
// session.Store.Reprice, in one transaction: all messages or none.
//
//	reprice [--prices FILE] [--pricing-version V] [--session ID]... [--dry-run] DB
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/metis-llm/metis/canonical/pricing"
	"github.com/metis-llm/metis/internal/cli"
	"github.com/metis-llm/metis/session"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments and outputs, returning the exit
// status: 0 done, 1 the store or the table failed, 2 bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("reprice", "DB", "Recompute the cost of every stored message under a price table's pricing_version.")
	c.Notes = `DB is a session database (session.OpenStore; metis/sessions.db under the user's
config directory by default). Each message with usage gets the cost of its token counts
at the table's rates and the table's pricing_version; content and every other field
stay byte for byte. All messages are written in one transaction, or none: a model the
table has no price for, or a store error, writes nothing.
Examples:
  reprice --prices prices-2026-09.yaml --pricing-version 2026-09-01 ~/.config/metis/sessions.db
  reprice --dry-run --session 01JD... sessions.db
Exit status: 0 done, 1 a store or price table error, 2 a usage error.`
	var (
		pricesFile, version string
		sessions            []string
		dryRun              bool
	)
	c.StringVar(&pricesFile, "prices", "", "price table `FILE` (YAML, as canonical/pricing); default the embedded table")
	c.StringVar(&version, "pricing-version", "", "the pricing_version `V` to reprice under; refused unless it is the table's")
	c.StringSliceVar(&sessions, "session", nil, "reprice only session `ID` (repeatable); default every session")
	c.BoolVar(&dryRun, "dry-run", false, "show what would change, write nothing")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() != 1 {
		return c.Fail(stderr, "want exactly one session database (DB)")
	}
	table := pricing.Default()
	if pricesFile != "" {
		f, err := os.Open(pricesFile)
		if err != nil {
			fmt.Fprintf(stderr, "reprice: %v\n", err)
			return 1
		}
		table, err = pricing.Load(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "reprice: %s: %v\n", pricesFile, err)
			return 1
		}
	}
	if version != "" && version != table.Version {
		src := "the embedded table"
		if pricesFile != "" {
			src = pricesFile
		}
		return c.Fail(stderr, fmt.Sprintf("--pricing-version %s, but %s is pricing_version %s", version, src, table.Version))
	}
	db := c.Arg(0)
	if _, err := os.Stat(db); err != nil {
		fmt.Fprintf(stderr, "reprice: %v\n", err)
		return 1
	}
	st, err := session.OpenStore(db)
	if err != nil {
		fmt.Fprintf(stderr, "reprice: %v\n", err)
		return 1
	}
	defer st.Close()
	res, err := st.Reprice(ctx, table, session.RepriceOptions{Sessions: sessions, DryRun: dryRun})
	if err != nil {
		fmt.Fprintln(stderr, err)
		if errors.Is(err, context.Canceled) {
			return 130
		}
		return 1
	}
	report(stdout, res, dryRun)
	return 0
}

// report prints a line per message and the totals, exact and to the cent.
func report(w io.Writer, res *session.RepriceResult, dryRun bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tMESSAGE\tMODEL\tOLD COST\tOLD VERSION\tNEW COST")
	for _, m := range res.Messages {
		fmt.Fprintf(tw, "%s\t%s\t%s\t$%s\t%s\t$%s\n", m.SessionID, m.MessageID, m.Model, m.OldCost, orDash(m.OldVersion), m.NewCost)
	}
	tw.Flush()
	verb := "rewrote"
	if dryRun {
		verb = "would rewrite"
	}
	fmt.Fprintf(w, "%d message(s) priced under pricing_version %s; %s %d\n", len(res.Messages), res.PricingVersion, verb, countChanged(res))
	fmt.Fprintf(w, "total $%s → $%s (to the cent $%s → $%s)\n", res.OldTotal, res.NewTotal, res.OldTotal.StringFixed(2), res.NewTotal.StringFixed(2))
}

func countChanged(res *session.RepriceResult) int {
	n := 0
	for _, m := range res.Messages {
		if m.Changed() {
			n++
		}
	}
	return n
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
