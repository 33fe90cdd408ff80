package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session"
	"github.com/metis-llm/metis/session/sessiontest"
)

var quiet = slog.New(slog.DiscardHandler)

// storedDB writes a session with two priced Sonnet turns to a new file
// database and returns its path. Under the embedded table (2026-05-08)
// they cost 12000×$3 + 3000×$15 = $0.081 and 2000×$3 + 500×$15 =
// $0.0135 per million tokens.
func storedDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := session.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	turns := []canonical.TokenUsage{{InputTokens: 12000, OutputTokens: 3000}, {InputTokens: 2000, OutputTokens: 500}}
	n := 0
	a := &sessiontest.Adapter{Provider: "anthropic", Caps: canonical.Capabilities{SupportsTools: true},
		CompleteFunc: func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
			u := turns[n]
			n++
			return &canonical.Response{RequestID: req.RequestID, Model: req.Model, Provider: "anthropic",
				Content: canonical.Blocks{canonical.TextBlock{Text: "ok"}}, StopReason: canonical.StopEndTurn, Usage: u}, nil
		}}
	ids := 0
	s := session.New(session.Options{ID: "s1", Model: "anthropic:claude-sonnet-4-6", Store: st, Logger: quiet,
		IDs:      func() string { ids++; return fmt.Sprintf("msg_%d", ids) },
		Adapters: func(string) (adapters.Adapter, error) { return a, nil }})
	for range turns {
		if _, err := s.AddUser(canonical.TextBlock{Text: "go"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Call(context.Background(), session.CallOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !s.Cost().Equal(decimal.RequireFromString("0.0945")) {
		t.Fatalf("stored cost %s, want 0.0945", s.Cost())
	}
	return path
}

func costOf(t *testing.T, path string) (decimal.Decimal, []string) {
	t.Helper()
	st, err := session.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.LoadSession(context.Background(), "s1", session.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, m := range s.Messages() {
		if m.Metadata.Usage != nil {
			versions = append(versions, m.Metadata.Usage.PricingVersion)
		}
	}
	return s.Cost(), versions
}

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestReprice reprices a stored session to the cent: at the 2026-09-01
// rates the turns cost 12000×$2 + 3000×$10 = $0.054 and 2000×$2 + 500×$10
// = $0.009, $0.063 in all.
func TestReprice(t *testing.T) {
	db := storedDB(t)
	code, out, errs := runCmd("--prices", "testdata/prices-2026-09.yaml", "--pricing-version", "2026-09-01", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"s1       msg_2    anthropic:claude-sonnet-4-6  $0.081    2026-05-08   $0.054\n",
		"s1       msg_4    anthropic:claude-sonnet-4-6  $0.0135   2026-05-08   $0.009\n",
		"2 message(s) priced under pricing_version 2026-09-01; rewrote 2",
		"total $0.0945 → $0.063 (to the cent $0.09 → $0.06)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	cost, versions := costOf(t, db)
	if !cost.Equal(decimal.RequireFromString("0.063")) {
		t.Errorf("stored cost now %s, want 0.063", cost)
	}
	if diff := cmp.Diff([]string{"2026-09-01", "2026-09-01"}, versions); diff != "" {
		t.Errorf("versions (-want +got)\n%s", diff)
	}
}

func TestRepriceDryRun(t *testing.T) {
	db := storedDB(t)
	code, out, _ := runCmd("--dry-run", "--prices", "testdata/prices-2026-09.yaml", db)
	if code != 0 || !strings.Contains(out, "would rewrite 2") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if cost, _ := costOf(t, db); !cost.Equal(decimal.RequireFromString("0.0945")) {
		t.Errorf("a dry run changed the cost to %s", cost)
	}
}

// TestRepriceFailures: usage errors exit 2 with the usage; table and
// store errors exit 1 naming the problem, and nothing is written.
func TestRepriceFailures(t *testing.T) {
	db := storedDB(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, 0, ""},
		{"bad flag", []string{"--nope", db}, 2, "reprice: unknown flag: --nope"},
		{"no database", nil, 2, "reprice: want exactly one session database (DB)"},
		{"wrong version", []string{"--prices", "testdata/prices-2026-09.yaml", "--pricing-version", "2026-05-08", db}, 2,
			"reprice: --pricing-version 2026-05-08, but testdata/prices-2026-09.yaml is pricing_version 2026-09-01"},
		{"missing table", []string{"--prices", "testdata/nope.yaml", db}, 1, "reprice: open testdata/nope.yaml: no such file or directory"},
		{"missing database", []string{filepath.Join(t.TempDir(), "none.db")}, 1, "none.db: no such file or directory"},
		{"unpriced model", []string{"--prices", "testdata/prices-no-sonnet.yaml", db}, 1,
			"pricing_version 2026-10-01 has no price for 2 message(s)"},
		{"unknown session", []string{"--session", "nope", db}, 1, "reprice: session nope: session not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.stderr)
			}
			if tc.name == "help" && !strings.HasPrefix(out, "usage: reprice [flags] DB") {
				t.Errorf("help output %q", out)
			}
		})
	}
	if cost, _ := costOf(t, db); !cost.Equal(decimal.RequireFromString("0.0945")) {
		t.Errorf("a failed run changed the cost to %s", cost)
	}
}
