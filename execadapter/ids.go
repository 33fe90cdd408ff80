package execadapter

import (
	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// This file maps tool ids across the process boundary. In protocol v1
// the child never sees canonical ids or the session's tool-id map:
// requests reach it with every tool id already in the form its provider
// knows (the map's Wire), and the ids it reports are the provider's,
// mapped back here (the map's Canonical). A provider that issues no ids
// of its own makes the child mint canonical ones (tu_<ULID>), which are
// kept as they are.
//
// In v2 requests carry the canonical ids and, in tool_ids, the
// provider's id for each that has one (table), as the session's map
// gives them to an adapter in process; the child reports canonical ids,
// binding the ones it mints to the provider's with the line's tool_ids
// (bind). A child may still report a provider's id, which is mapped as
// in v1.

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

// table returns the provider's ids for the tool ids req holds that it
// knows by another id (v2's tool_ids), or nil.
func (m *idMapper) table(req *canonical.Request) map[string]string {
	var out map[string]string
	add := func(id string) {
		if wire := m.ids.Wire(m.provider, id); wire != id {
			if out == nil {
				out = map[string]string{}
			}
			out[id] = wire
		}
	}
	var walk func(bs canonical.Blocks)
	walk = func(bs canonical.Blocks) {
		for _, b := range bs {
			switch v := b.(type) {
			case canonical.ToolUseBlock:
				add(v.ID)
			case canonical.ToolResultBlock:
				add(v.ToolUseID)
				walk(v.Content)
			}
		}
	}
	for _, msg := range req.Messages {
		walk(msg.Content)
	}
	return out
}

// bind records the canonical ids the child minted (v2's tool_ids).
func (m *idMapper) bind(minted map[string]string) {
	b, ok := m.ids.(binder)
	if !ok {
		return
	}
	for canon, wire := range minted {
		b.Bind(canon, m.provider, wire)
	}
}

// canonicalID maps an id the child reported: a canonical id (tu_…) is
// kept, and bound to itself unless it is bound already; a provider's id
// is mapped.
func (m *idMapper) canonicalID(providerID string) string {
	if providerID == "" {
		return ""
	}
	if canonical.IsToolUseID(providerID) {
		if _, ok := m.ids.(binder); ok {
			m.ids.Wire(m.provider, providerID) // binds it to itself the first time
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
