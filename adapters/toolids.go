package adapters

import (
	"sync"

	"github.com/metis-llm/metis/canonical"
)

// ToolIDMap is the in-memory canonical.ToolIDMap: a per-session,
// concurrency-safe bidirectional map between canonical tool ids and the
// ids each provider issued or was sent.
type ToolIDMap struct {
	mu         sync.Mutex
	toCanon    map[providerKey]string
	toProvider map[providerKey]string // key: provider + canonical id
}

type providerKey struct{ provider, id string }

// ToolIDPair is one recorded mapping, as the session persists it.
type ToolIDPair struct {
	Canonical  string
	Provider   string
	ProviderID string
}

// NewToolIDMap returns an empty map.
func NewToolIDMap() *ToolIDMap {
	return &ToolIDMap{toCanon: map[providerKey]string{}, toProvider: map[providerKey]string{}}
}

var _ canonical.ToolIDMap = (*ToolIDMap)(nil)

// Canonical returns the canonical id for providerID, allocating a tu_ id
// on first sight.
func (m *ToolIDMap) Canonical(provider, providerID string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.toCanon[providerKey{provider, providerID}]; ok {
		return c
	}
	c := canonical.NewToolUseID()
	m.bind(c, provider, providerID)
	return c
}

// Wire returns provider's own id for canonicalID, or, when that provider
// never saw the call, the canonical id itself (tu_<ulid> is accepted by
// every supported provider), recording it so the echo maps back.
func (m *ToolIDMap) Wire(provider, canonicalID string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.toProvider[providerKey{provider, canonicalID}]; ok {
		return p
	}
	m.bind(canonicalID, provider, canonicalID)
	return canonicalID
}

// Bind records a mapping, as when a session reloads its tool_calls table.
func (m *ToolIDMap) Bind(canonicalID, provider, providerID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bind(canonicalID, provider, providerID)
}

func (m *ToolIDMap) bind(canonicalID, provider, providerID string) {
	m.toCanon[providerKey{provider, providerID}] = canonicalID
	m.toProvider[providerKey{provider, canonicalID}] = providerID
}

// Pairs returns every recorded mapping, in no particular order.
func (m *ToolIDMap) Pairs() []ToolIDPair {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ToolIDPair, 0, len(m.toProvider))
	for k, pid := range m.toProvider {
		out = append(out, ToolIDPair{Canonical: k.id, Provider: k.provider, ProviderID: pid})
	}
	return out
}
