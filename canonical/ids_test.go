package canonical

import (
	"strings"
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIDFormats(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		prefix string
	}{
		{"message", NewMessageID(), ""},
		{"tool use", NewToolUseID(), "tu_"},
		{"request", NewRequestID(), "req_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest, ok := strings.CutPrefix(tt.id, tt.prefix)
			require.True(t, ok, "%q lacks prefix %q", tt.id, tt.prefix)
			assert.Len(t, rest, 26)
			_, err := ulid.ParseStrict(rest)
			assert.NoError(t, err)
		})
	}
}

// Ids from one process sort in creation order, even many within one
// millisecond (001 §6.1), and never repeat across goroutines.
func TestIDsMonotonic(t *testing.T) {
	prev := NewMessageID()
	for range 10000 {
		id := NewMessageID()
		require.Less(t, prev, id)
		prev = id
	}
	tu := NewToolUseID()
	require.Less(t, prev, strings.TrimPrefix(tu, "tu_"))
}

func TestIDsUniqueAcrossGoroutines(t *testing.T) {
	const workers, each = 8, 500
	ids := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids[w] = append(ids[w], NewToolUseID())
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, list := range ids {
		for i, id := range list {
			require.False(t, seen[id], "duplicate %s", id)
			seen[id] = true
			if i > 0 {
				require.Less(t, list[i-1], id)
			}
		}
	}
	assert.Len(t, seen, workers*each)
}

func TestIsToolUseID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"tu_01ARZ3NDEKTSV4RRFFQ69G5FAV", true},
		{NewToolUseID(), true},
		{"tu_01HZ100", false},                       // 001 §8.2's shorthand is not a ULID
		{"toolu_01ARZ3NDEKTSV4RRFFQ69G5FAV", false}, // an Anthropic id
		{"call_xyz789", false},                      // an OpenAI id
		{"01ARZ3NDEKTSV4RRFFQ69G5FAV", false},       // no prefix
		{"tu_", false},
		{"", false},
		{"tu_01ARZ3NDEKTSV4RRFFQ69G5FAVX", false}, // 27 characters
		{"tu_01ARZ3NDEKTSV4RRFFQ69G5FAU!", false},
		{"tu_81ARZ3NDEKTSV4RRFFQ69G5FAV", false}, // timestamp overflows 48 bits
		{"tu_01ARZ3NDEKTSV4RRFFQ69G5FAI", false}, // I is not Crockford base32
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IsToolUseID(tt.id), tt.id)
	}
}
