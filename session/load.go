package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/metis-llm/metis/canonical"
)

// LoadSession restores session id: its workspace, active model and
// routing state from the sessions row, its messages in order, and its
// ToolIDMap from the tool_calls rows. opts supplies the configuration
// that is not persisted (Adapters, Tools, System, Prices, Logger, Now,
// IDs and the policy flags); its ID, WorkspacePath and Store are
// ignored, and its Model is used only when the row has none. The
// returned session keeps writing to st.
func (st *Store) LoadSession(ctx context.Context, id string, opts Options) (*Session, error) {
	var (
		workspace     string
		activeModel   sql.NullString
		routingJSON   sql.NullString
		createdAt     int64
		schemaVersion int
	)
	err := st.db.QueryRowContext(ctx, `SELECT workspace_path, active_model, routing_policy_json, schema_version, created_at
  FROM sessions WHERE id = ?`, id).Scan(&workspace, &activeModel, &routingJSON, &schemaVersion, &createdAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session: load %s: %w", id, ErrSessionNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("session: load %s: %w", id, err)
	}
	if schemaVersion > canonical.SchemaVersion {
		return nil, fmt.Errorf("session: load %s: schema_version %d is newer than this build supports (%d)",
			id, schemaVersion, canonical.SchemaVersion)
	}

	opts.ID, opts.WorkspacePath, opts.Store = id, workspace, st
	if activeModel.Valid {
		opts.Model = activeModel.String
	}
	s := newSession(opts)
	s.createdAt = fromMicros(createdAt)
	if routingJSON.Valid && routingJSON.String != "" {
		if err := json.Unmarshal([]byte(routingJSON.String), &s.routing); err != nil {
			return nil, fmt.Errorf("session: load %s: routing_policy_json: %w", id, err)
		}
	}

	msgs, err := st.messages(ctx, id)
	if err != nil {
		return nil, err
	}
	s.messages = msgs

	calls, err := st.ToolCalls(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, tc := range calls {
		if tc.Provider != "" && tc.ProviderID != "" {
			s.toolIDs.Bind(tc.ID, tc.Provider, tc.ProviderID)
		}
	}
	return s, nil
}

// messages reads a session's messages in conversation order.
func (st *Store) messages(ctx context.Context, sessionID string) ([]canonical.Message, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT id, role, content_json, metadata_json, created_at, schema_version
  FROM messages WHERE session_id = ? ORDER BY created_at, rowid`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("session: load %s: messages: %w", sessionID, err)
	}
	defer rows.Close()
	var out []canonical.Message
	for rows.Next() {
		var (
			id, role, content, metadata string
			createdAt                   int64
			version                     int
		)
		if err := rows.Scan(&id, &role, &content, &metadata, &createdAt, &version); err != nil {
			return nil, fmt.Errorf("session: load %s: messages: %w", sessionID, err)
		}
		m, err := decodeMessage(sessionID, id, role, content, metadata, createdAt, version)
		if err != nil {
			return nil, fmt.Errorf("session: load %s: %w", sessionID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: load %s: messages: %w", sessionID, err)
	}
	return out, nil
}

// decodeMessage rebuilds a message from its row through the canonical
// migration registry, so that rows of an older schema_version are brought
// up to date. Errors name the message and the column.
func decodeMessage(sessionID, id, role, content, metadata string, createdAt int64, version int) (canonical.Message, error) {
	if !json.Valid([]byte(content)) {
		return canonical.Message{}, fmt.Errorf("message %s: content_json is not valid JSON", id)
	}
	if !json.Valid([]byte(metadata)) {
		return canonical.Message{}, fmt.Errorf("message %s: metadata_json is not valid JSON", id)
	}
	at := fromMicros(createdAt)
	doc, err := json.Marshal(map[string]any{
		"id":             id,
		"session_id":     sessionID,
		"role":           role,
		"content":        json.RawMessage(content),
		"metadata":       json.RawMessage(metadata),
		"created_at":     at,
		"schema_version": version,
	})
	if err != nil {
		return canonical.Message{}, fmt.Errorf("message %s: %w", id, err)
	}
	m, err := canonical.DecodeMessage(doc)
	if err != nil {
		return canonical.Message{}, fmt.Errorf("message %s: %w", id, err)
	}
	if m.Content == nil {
		m.Content = canonical.Blocks{}
	}
	m.CreatedAt = at
	return m, nil
}

// ToolCalls returns the tool_calls rows of a session in creation order.
func (st *Store) ToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT id, message_id, result_message_id, name, status, provider_id, provider, created_at, completed_at
  FROM tool_calls WHERE session_id = ? ORDER BY created_at, rowid`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("session: tool calls of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []ToolCall
	for rows.Next() {
		var (
			tc                           ToolCall
			status                       string
			result, providerID, provider sql.NullString
			createdAt                    int64
			completedAt                  sql.NullInt64
		)
		if err := rows.Scan(&tc.ID, &tc.MessageID, &result, &tc.Name, &status, &providerID, &provider, &createdAt, &completedAt); err != nil {
			return nil, fmt.Errorf("session: tool calls of %s: %w", sessionID, err)
		}
		tc.SessionID = sessionID
		tc.ResultMessageID, tc.ProviderID, tc.Provider = result.String, providerID.String, provider.String
		tc.Status = ToolCallStatus(status)
		tc.CreatedAt = fromMicros(createdAt)
		if completedAt.Valid {
			tc.CompletedAt = fromMicros(completedAt.Int64)
		}
		out = append(out, tc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: tool calls of %s: %w", sessionID, err)
	}
	return out, nil
}
