package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/canonical/pricing"
)

// RepriceOptions select what Store.Reprice recomputes.
type RepriceOptions struct {
	// Sessions limits the walk to these session ids; empty means every
	// session in the store.
	Sessions []string
	// DryRun computes the result without writing anything.
	DryRun bool
}

// RepricedMessage is one message Reprice priced: its cost and pricing
// version before and after.
type RepricedMessage struct {
	SessionID string
	MessageID string
	// Model is the model the cost is for: the message's metadata.model,
	// else its routing's chosen model when the table has no price for
	// the first (as a session prices a call).
	Model      string
	OldCost    decimal.Decimal
	OldVersion string
	NewCost    decimal.Decimal
	NewVersion string
}

// Changed reports whether the cost or the version changed.
func (m RepricedMessage) Changed() bool {
	return !m.OldCost.Equal(m.NewCost) || m.OldVersion != m.NewVersion
}

// RepriceResult is what Reprice did: every message with usage, in the
// order of the sessions and their messages, and the totals.
type RepriceResult struct {
	PricingVersion string
	Messages       []RepricedMessage
	// OldTotal and NewTotal sum the costs before and after, exactly.
	OldTotal, NewTotal decimal.Decimal
	// Written is the number of message rows rewritten (0 for a dry run,
	// and messages whose cost and version did not change are not
	// rewritten).
	Written int
}

// RepriceError lists the messages a table cannot price.
type RepriceError struct {
	PricingVersion string
	// Unpriced names each message ("session/message: model").
	Unpriced []string
}

func (e *RepriceError) Error() string {
	const most = 10
	list := e.Unpriced
	more := ""
	if len(list) > most {
		list, more = list[:most], fmt.Sprintf(" and %d more", len(e.Unpriced)-most)
	}
	return fmt.Sprintf("reprice: pricing_version %s has no price for %d message(s): %s%s; nothing was written",
		e.PricingVersion, len(e.Unpriced), strings.Join(list, ", "), more)
}

// Unwrap returns pricing.ErrUnknownModel.
func (e *RepriceError) Unwrap() error { return pricing.ErrUnknownModel }

// Reprice walks the stored sessions and recomputes the cost of every
// message that records usage under table (001 §6.4): the token counts are
// priced with table's rates for the message's model, and the new cost_usd
// and pricing_version (table.Version) are written into the message's
// metadata_json. Nothing else changes: content_json and every other
// metadata field keep their bytes. Messages without usage (user, tool,
// system) are left alone.
//
// It is all or nothing: the walk and the writes are one transaction, so
// a model table does not price (a *RepriceError listing every such
// message), a row that does not decode, or any store error (a lock held
// past the busy timeout, a full disk, a read-only file) writes nothing and
// is returned. A session id of opts.Sessions that the store does not hold
// is an error wrapping ErrSessionNotFound. Sessions already loaded in
// memory keep their old costs until loaded again.
func (st *Store) Reprice(ctx context.Context, table *pricing.Table, opts RepriceOptions) (*RepriceResult, error) {
	if table == nil {
		return nil, errors.New("reprice: no price table")
	}
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("reprice: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	res := &RepriceResult{PricingVersion: table.Version}
	if err := reprice(ctx, tx, table, opts, res); err != nil {
		return nil, err
	}
	if opts.DryRun {
		return res, nil
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("reprice: committing: %w", err)
	}
	return res, nil
}

// reprice fills res within tx, writing unless opts.DryRun.
func reprice(ctx context.Context, tx *sql.Tx, table *pricing.Table, opts RepriceOptions, res *RepriceResult) error {
	ids, err := repriceSessions(ctx, tx, opts.Sessions)
	if err != nil {
		return err
	}
	var (
		unpriced []string
		writes   []repriceWrite
	)
	for _, id := range ids {
		rows, err := usageRows(ctx, tx, id)
		if err != nil {
			return err
		}
		for _, r := range rows {
			rm, md, ok := repriceRow(table, id, r)
			if !ok {
				unpriced = append(unpriced, id+"/"+r.id+": "+rm.Model)
				continue
			}
			res.Messages = append(res.Messages, rm)
			res.OldTotal = res.OldTotal.Add(rm.OldCost)
			res.NewTotal = res.NewTotal.Add(rm.NewCost)
			if rm.Changed() {
				writes = append(writes, repriceWrite{session: id, message: r.id, metadata: md})
			}
		}
	}
	if len(unpriced) > 0 {
		return &RepriceError{PricingVersion: table.Version, Unpriced: unpriced}
	}
	if opts.DryRun {
		return nil
	}
	for _, w := range writes {
		b, err := json.Marshal(w.metadata)
		if err != nil {
			return fmt.Errorf("reprice: message %s: encoding metadata: %w", w.message, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET metadata_json = ? WHERE id = ? AND session_id = ?`,
			string(b), w.message, w.session); err != nil {
			return fmt.Errorf("reprice: writing message %s: %w", w.message, err)
		}
	}
	res.Written = len(writes)
	return nil
}

type repriceWrite struct {
	session, message string
	metadata         canonical.MessageMetadata
}

// usageRow is one stored message's id and metadata.
type usageRow struct {
	id       string
	metadata canonical.MessageMetadata
}

// repriceSessions returns the ids to walk: want, each checked to exist,
// or every session in the store.
func repriceSessions(ctx context.Context, tx *sql.Tx, want []string) ([]string, error) {
	if len(want) > 0 {
		for _, id := range want {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("reprice: session %s: %w", id, ErrSessionNotFound)
			}
			if err != nil {
				return nil, fmt.Errorf("reprice: session %s: %w", id, err)
			}
		}
		return want, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM sessions ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("reprice: listing sessions: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("reprice: listing sessions: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reprice: listing sessions: %w", err)
	}
	return ids, nil
}

// usageRows reads the messages of session id that record usage, in order.
func usageRows(ctx context.Context, tx *sql.Tx, id string) ([]usageRow, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, metadata_json FROM messages WHERE session_id = ? ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("reprice: session %s: %w", id, err)
	}
	defer rows.Close()
	var out []usageRow
	for rows.Next() {
		var (
			r  usageRow
			md string
		)
		if err := rows.Scan(&r.id, &md); err != nil {
			return nil, fmt.Errorf("reprice: session %s: %w", id, err)
		}
		if err := json.Unmarshal([]byte(md), &r.metadata); err != nil {
			return nil, fmt.Errorf("reprice: session %s, message %s: metadata_json does not decode: %w", id, r.id, err)
		}
		if r.metadata.Usage != nil {
			out = append(out, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reprice: session %s: %w", id, err)
	}
	return out, nil
}

// repriceRow prices one row; ok is false when table has no price for it.
// The returned metadata carries the new cost and version.
func repriceRow(table *pricing.Table, session string, r usageRow) (RepricedMessage, canonical.MessageMetadata, bool) {
	md := r.metadata
	u := *md.Usage
	rm := RepricedMessage{SessionID: session, MessageID: r.id, Model: md.Model, OldCost: u.CostUSD, OldVersion: u.PricingVersion}
	tokens := u.Tokens() // the price table reads the four billed counts
	cost, err := table.Cost(md.Model, tokens)
	if err != nil && md.Routing != nil && md.Routing.ChosenModel != "" && md.Routing.ChosenModel != md.Model {
		if c, err2 := table.Cost(md.Routing.ChosenModel, tokens); err2 == nil {
			cost, err, rm.Model = c, nil, md.Routing.ChosenModel
		}
	}
	if err != nil {
		return rm, md, false
	}
	u.CostUSD, u.PricingVersion = cost, table.Version
	md.Usage = &u
	rm.NewCost, rm.NewVersion = cost, table.Version
	return rm, md, true
}
