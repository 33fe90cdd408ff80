package execadapter

import (
	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// This file maps tool ids across the process boundary. The child never
// sees canonical ids or the session's tool-id map: requests reach it with
// every tool id already in the form its provider knows (the map's Wire),
// and the ids it reports are the provider's, mapped back here (the map's
// Canonical). A provider that issues no ids of its own makes the child
// mint canonical ones (tu_<ULID>), which are kept as they are.

// binder is the part of adapters.ToolIDMap that records a mapping.
type binder interface {
	Bind(canonicalID, provider, providerID string)
}

// idMapper maps one call's tool ids.
type idMapper struct {
	ids      canonical.ToolIDMap
	provider string
}

func newIDMapper(req *canonical.Request, provider string) *idMapper {
	ids := req.ToolIDs
	if ids == nil {
		ids = adapters.NewToolIDMap()
	}
	return &idMapper{ids: ids, provider: provider}
}

// wire returns a copy of req whose tool ids are the provider's.
func (m *idMapper) wire(req *canonical.Request) *canonical.Request {
	r := *req
	r.ToolIDs = nil
	r.Messages = make([]canonical.Message, len(req.Messages))
	for i, msg := range req.Messages {
		msg.Content = m.wireBlocks(msg.Content)
		r.Messages[i] = msg
	}
	return &r
}

func (m *idMapper) wireBlocks(bs canonical.Blocks) canonical.Blocks {
	if bs == nil {
		return nil
	}
	out := make(canonical.Blocks, len(bs))
	for i, b := range bs {
		switch v := b.(type) {
		case canonical.ToolUseBlock:
			v.ID = m.ids.Wire(m.provider, v.ID)
			out[i] = v
		case canonical.ToolResultBlock:
			v.ToolUseID = m.ids.Wire(m.provider, v.ToolUseID)
			v.Content = m.wireBlocks(v.Content)
			out[i] = v
		default:
			out[i] = b
		}
	}
	return out
}

// canonicalID maps an id the child reported.
func (m *idMapper) canonicalID(providerID string) string {
	if providerID == "" {
		return ""
	}
	if canonical.IsToolUseID(providerID) {
		if b, ok := m.ids.(binder); ok {
			b.Bind(providerID, m.provider, providerID)
			return providerID
		}
	}
	return m.ids.Canonical(m.provider, providerID)
}

func (m *idMapper) response(resp *canonical.Response) {
	if resp == nil {
		return
	}
	for i, b := range resp.Content {
		if v, ok := b.(canonical.ToolUseBlock); ok {
			v.ID = m.canonicalID(v.ID)
			resp.Content[i] = v
		}
	}
}

func (m *idMapper) event(ev *canonical.StreamEvent) {
	ev.ToolUseID = m.canonicalID(ev.ToolUseID)
	m.response(ev.Response)
}
