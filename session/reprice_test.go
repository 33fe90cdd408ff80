package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/canonical/pricing"
)

// newPrices is the table the tests reprice under: different rates from
// the embedded one, and a version of its own.
const newPrices = `pricing_version: "2026-09-01"
models:
  "anthropic:claude-sonnet-4-6":
    input_per_mtok_usd: 2.00
    output_per_mtok_usd: 10.00
    cached_read_per_mtok_usd: 0.20
    cache_write_per_mtok_usd: 2.50
  "openai:gpt-5":
    input_per_mtok_usd: 1.25
    output_per_mtok_usd: 10.00
    cached_read_per_mtok_usd: 0.125
  "ollama:*":
    input_per_mtok_usd: 0
    output_per_mtok_usd: 0
`

func loadTable(t *testing.T, yaml string) *pricing.Table {
	t.Helper()
	tb, err := pricing.Load(strings.NewReader(yaml))
	require.NoError(t, err)
	return tb
}

// assistantWith is a complete assistant message of model with the given
// tokens and an old cost.
func assistantWith(id, model, chosen string, in, out, cached, written int, oldCost string, at time.Time) canonical.Message {
	return canonical.Message{
		ID: id, SessionID: "s1", Role: canonical.RoleAssistant, SchemaVersion: canonical.SchemaVersion, CreatedAt: at,
		Content: canonical.Blocks{canonical.TextBlock{Text: "answer " + id}},
		Metadata: canonical.MessageMetadata{
			Model: model, Provider: canonical.ProviderOf(model), Status: canonical.StatusComplete,
			Routing: &canonical.RoutingDecisionRecord{Mode: canonical.RoutingDefault, ChosenModel: chosen, Reason: ReasonDefault},
			Usage: &canonical.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: cached, CacheCreationInputTokens: written,
				CostUSD: decimal.RequireFromString(oldCost), PricingVersion: "2026-05-08", LatencyMS: 800},
			ProviderRaw: map[string]json.RawMessage{canonical.ProviderOf(model): json.RawMessage(`{"id":"x","z":1,"a":2}`)},
			Extra:       map[string]json.RawMessage{"future_field": json.RawMessage(`{"kept":true}`)},
		},
	}
}

// storedSession writes session s1 (and s2, with one priced message) to
// st: a user message, four assistant messages on three models — one
// whose served model has no price but whose routing's chosen model has —
// and a tool message.
func storedSession(t *testing.T, st *Store) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 5, 8, 12, 0, 0, 0, time.UTC)
	for _, id := range []string{"s1", "s2"} {
		require.NoError(t, st.saveSession(ctx, sessionRow{ID: id, ActiveModel: "anthropic:claude-sonnet-4-6",
			Routing: routingState{Mode: canonical.RoutingDefault, Reason: ReasonDefault}, CreatedAt: at, UpdatedAt: at}))
	}
	msgs := []canonical.Message{
		{ID: "m1", SessionID: "s1", Role: canonical.RoleUser, SchemaVersion: 1, CreatedAt: at, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
		assistantWith("m2", "anthropic:claude-sonnet-4-6", "anthropic:claude-sonnet-4-6", 1200, 350, 10000, 2000, "0.0202", at.Add(time.Second)),
		assistantWith("m3", "openai:gpt-5", "openai:gpt-5", 800, 4000, 3000, 0, "0.04038", at.Add(2*time.Second)),
		assistantWith("m4", "ollama:qwen3", "ollama:qwen3", 500, 20, 0, 0, "0", at.Add(3*time.Second)),
		assistantWith("m5", "openai:gpt-5-2025-08-07", "openai:gpt-5", 100, 100, 0, 0, "0", at.Add(4*time.Second)),
	}
	for _, m := range msgs {
		require.NoError(t, st.AppendMessage(ctx, "s1", m, nil))
	}
	other := assistantWith("o1", "openai:gpt-5", "openai:gpt-5", 1000, 1000, 0, 0, "0.01125", at)
	other.SessionID = "s2"
	require.NoError(t, st.AppendMessage(ctx, "s2", other, nil))
}

// rawRows returns each message's content_json and metadata_json.
func rawRows(t *testing.T, st *Store) map[string][2]string {
	t.Helper()
	rows, err := st.db.Query(`SELECT id, content_json, metadata_json FROM messages`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string][2]string{}
	for rows.Next() {
		var id, c, m string
		require.NoError(t, rows.Scan(&id, &c, &m))
		out[id] = [2]string{c, m}
	}
	require.NoError(t, rows.Err())
	return out
}

// TestReprice is 001 §6.4: every message with usage is priced again under
// the named table, to the exact decimal, the new cost and pricing_version
// are written, and nothing else changes: content bytes, token counts,
// provider_raw key order and unknown metadata fields stay as they were.
func TestReprice(t *testing.T) {
	ctx := context.Background()
	st, _ := openFileStore(t)
	storedSession(t, st)
	before := rawRows(t, st)

	res, err := st.Reprice(ctx, loadTable(t, newPrices), RepriceOptions{Sessions: []string{"s1"}})
	require.NoError(t, err)

	// Worked by hand at the new rates, per million tokens:
	//   m2 sonnet: 1200×2 + 350×10 + 10000×0.20 + 2000×2.50 = 12900 → $0.0129
	//   m3 gpt-5:  800×1.25 + 4000×10 + 3000×0.125          = 41375 → $0.041375
	//   m4 ollama: free                                              → $0
	//   m5 served gpt-5-2025-08-07 (no price), chosen gpt-5:
	//              100×1.25 + 100×10                        = 1125  → $0.001125
	want := []RepricedMessage{
		{SessionID: "s1", MessageID: "m2", Model: "anthropic:claude-sonnet-4-6", OldCost: dec("0.0202"), OldVersion: "2026-05-08", NewCost: dec("0.0129"), NewVersion: "2026-09-01"},
		{SessionID: "s1", MessageID: "m3", Model: "openai:gpt-5", OldCost: dec("0.04038"), OldVersion: "2026-05-08", NewCost: dec("0.041375"), NewVersion: "2026-09-01"},
		{SessionID: "s1", MessageID: "m4", Model: "ollama:qwen3", OldCost: dec("0"), OldVersion: "2026-05-08", NewCost: dec("0"), NewVersion: "2026-09-01"},
		{SessionID: "s1", MessageID: "m5", Model: "openai:gpt-5", OldCost: dec("0"), OldVersion: "2026-05-08", NewCost: dec("0.001125"), NewVersion: "2026-09-01"},
	}
	if diff := cmp.Diff(want, res.Messages, cmp.Comparer(decimal.Decimal.Equal)); diff != "" {
		t.Errorf("repriced messages (-want +got)\n%s", diff)
	}
	if !res.NewTotal.Equal(dec("0.0554")) || res.NewTotal.StringFixed(2) != "0.06" || !res.OldTotal.Equal(dec("0.06058")) {
		t.Errorf("totals old %s new %s, want 0.06058 and 0.0554 ($0.06)", res.OldTotal, res.NewTotal)
	}
	if res.Written != 4 || res.PricingVersion != "2026-09-01" {
		t.Errorf("written %d version %q", res.Written, res.PricingVersion)
	}

	after := rawRows(t, st)
	for id, b := range before {
		if after[id][0] != b[0] {
			t.Errorf("%s: content_json changed:\n%s\n%s", id, b[0], after[id][0])
		}
	}
	for _, id := range []string{"m1", "o1"} {
		if after[id][1] != before[id][1] {
			t.Errorf("%s: metadata changed though it was not to be repriced", id)
		}
	}
	for _, w := range want {
		var old, got canonical.MessageMetadata
		require.NoError(t, json.Unmarshal([]byte(before[w.MessageID][1]), &old))
		require.NoError(t, json.Unmarshal([]byte(after[w.MessageID][1]), &got))
		old.Usage.CostUSD, old.Usage.PricingVersion = w.NewCost, w.NewVersion
		if diff := cmp.Diff(old, got, cmp.Comparer(decimal.Decimal.Equal)); diff != "" {
			t.Errorf("%s: metadata beyond cost and version changed (-want +got)\n%s", w.MessageID, diff)
		}
		if !strings.Contains(after[w.MessageID][1], `{"id":"x","z":1,"a":2}`) {
			t.Errorf("%s: provider_raw bytes not kept: %s", w.MessageID, after[w.MessageID][1])
		}
	}

	// A loaded session sees the new costs.
	s, err := st.LoadSession(ctx, "s1", Options{Logger: discardLogger})
	require.NoError(t, err)
	if !s.Cost().Equal(dec("0.0554")) {
		t.Errorf("loaded session cost %s, want 0.0554", s.Cost())
	}

	// Again under the same table: nothing left to write.
	again, err := st.Reprice(ctx, loadTable(t, newPrices), RepriceOptions{})
	require.NoError(t, err)
	if again.Written != 1 || len(again.Messages) != 5 {
		t.Errorf("second reprice of every session wrote %d of %d, want only s2's message", again.Written, len(again.Messages))
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// TestRepriceDryRun computes without writing.
func TestRepriceDryRun(t *testing.T) {
	st, _ := openFileStore(t)
	storedSession(t, st)
	before := rawRows(t, st)
	res, err := st.Reprice(context.Background(), loadTable(t, newPrices), RepriceOptions{DryRun: true})
	require.NoError(t, err)
	if len(res.Messages) != 5 || res.Written != 0 {
		t.Errorf("dry run: %d messages, %d written", len(res.Messages), res.Written)
	}
	if diff := cmp.Diff(before, rawRows(t, st)); diff != "" {
		t.Errorf("a dry run wrote (-before +after)\n%s", diff)
	}
}

// TestRepriceErrors: a table that cannot price a message, a session the
// store lacks, a row that does not decode, and store failures are
// returned, and nothing is written.
func TestRepriceErrors(t *testing.T) {
	ctx := context.Background()
	noLocal := strings.Replace(newPrices, `"ollama:*"`, `"lmstudio:*"`, 1)

	t.Run("unpriced model", func(t *testing.T) {
		st, _ := openFileStore(t)
		storedSession(t, st)
		before := rawRows(t, st)
		_, err := st.Reprice(ctx, loadTable(t, noLocal), RepriceOptions{})
		var re *RepriceError
		require.ErrorAs(t, err, &re)
		require.ErrorIs(t, err, pricing.ErrUnknownModel)
		if diff := cmp.Diff([]string{"s1/m4: ollama:qwen3"}, re.Unpriced); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		require.Contains(t, err.Error(), "pricing_version 2026-09-01 has no price for 1 message(s): s1/m4: ollama:qwen3; nothing was written")
		if diff := cmp.Diff(before, rawRows(t, st)); diff != "" {
			t.Errorf("wrote despite the error (-before +after)\n%s", diff)
		}
	})
	t.Run("unknown session", func(t *testing.T) {
		st, _ := openFileStore(t)
		storedSession(t, st)
		_, err := st.Reprice(ctx, loadTable(t, newPrices), RepriceOptions{Sessions: []string{"s1", "nope"}})
		require.ErrorIs(t, err, ErrSessionNotFound)
		require.Contains(t, err.Error(), "session nope")
	})
	t.Run("row that does not decode", func(t *testing.T) {
		st, _ := openFileStore(t)
		storedSession(t, st)
		_, err := st.db.Exec(`UPDATE messages SET metadata_json = '{"usage":' WHERE id = 'm3'`)
		require.NoError(t, err)
		_, err = st.Reprice(ctx, loadTable(t, newPrices), RepriceOptions{})
		require.ErrorContains(t, err, "reprice: session s1, message m3: metadata_json does not decode")
	})
	t.Run("closed store", func(t *testing.T) {
		st, _ := openFileStore(t)
		storedSession(t, st)
		st.Close()
		_, err := st.Reprice(ctx, loadTable(t, newPrices), RepriceOptions{})
		require.ErrorContains(t, err, "reprice: ")
	})
	for _, f := range storeFaults {
		if f.name == "full" {
			continue // rewriting a row in place needs no new page
		}
		t.Run(f.name, func(t *testing.T) {
			st, path := openBreakableStore(t)
			storedSession(t, st)
			before := rawRows(t, st)
			heal := f.apply(t, st, path)
			_, err := st.Reprice(ctx, loadTable(t, newPrices), RepriceOptions{})
			require.ErrorContains(t, err, f.want)
			require.True(t, strings.HasPrefix(err.Error(), "reprice: "), err.Error())
			heal()
			if diff := cmp.Diff(before, rawRows(t, st)); diff != "" {
				t.Errorf("wrote despite the error (-before +after)\n%s", diff)
			}
			res, err := st.Reprice(ctx, loadTable(t, newPrices), RepriceOptions{})
			require.NoError(t, err, "healed")
			if res.Written != 5 {
				t.Errorf("after healing wrote %d, want 5", res.Written)
			}
		})
	}
	t.Run("no table", func(t *testing.T) {
		st, _ := openFileStore(t)
		_, err := st.Reprice(ctx, nil, RepriceOptions{})
		if err == nil || errors.Is(err, ErrSessionNotFound) {
			t.Errorf("got %v", err)
		}
	})
}
