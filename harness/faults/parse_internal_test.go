package faults

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// asInt takes every integer form a YAML or JSON decoder gives, up to the
// int64 range exactly, and refuses fractions and what does not fit.
func TestAsInt(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want int64
		ok   bool
	}{
		{int(7), 7, true},
		{int64(-3), -3, true},
		{int32(5), 5, true},
		{uint64(math.MaxInt64), math.MaxInt64, true},
		{uint64(math.MaxInt64) + 1, 0, false},
		{float64(12), 12, true},
		{float64(1.5), 0, false},
		{math.Inf(1), 0, false},
		{json.Number("42"), 42, true},
		{json.Number("4.2"), 0, false},
		{"42", 0, false},
	} {
		got, ok := asInt(tt.in)
		assert.Equal(t, tt.ok, ok, "%T %v", tt.in, tt.in)
		assert.Equal(t, tt.want, got, "%T %v", tt.in, tt.in)
	}
}
