// Package jsonwalk compares two decoded JSON values field by field, for
// the messages that name where a recorded and an observed document
// differ (the replay's request findings, the contract transcript diff).
package jsonwalk

import (
	"iter"
	"reflect"
	"slices"
	"strconv"
)

// A Diff is one place where two decoded JSON values differ: its path
// and the value on each side, HasA or HasB false where that side has
// nothing there.
type Diff struct {
	Path       string
	A, B       any
	HasA, HasB bool
}

// Diffs yields the places where a and b (values as encoding/json
// decodes them into any) differ, objects walked in key order and arrays
// by index, each path starting with path. An object or array present on
// both sides is descended into; anything else that is not equal is one
// Diff.
func Diffs(path string, a, b any) iter.Seq[Diff] {
	return func(yield func(Diff) bool) { walk(path, a, b, yield) }
}

// Keys returns the member names of a and b together, each once, sorted:
// the order both walks over two JSON objects visit their members in.
func Keys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func walk(path string, a, b any, yield func(Diff) bool) bool {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			for _, k := range Keys(av, bv) {
				if !side(path+"."+k, av, bv, k, yield) {
					return false
				}
			}
			return true
		}
	case []any:
		if bv, ok := b.([]any); ok {
			for i := range max(len(av), len(bv)) {
				sub := path + "[" + strconv.Itoa(i) + "]"
				d := Diff{Path: sub, HasA: i < len(av), HasB: i < len(bv)}
				if d.HasA {
					d.A = av[i]
				}
				if d.HasB {
					d.B = bv[i]
				}
				if !step(d, yield) {
					return false
				}
			}
			return true
		}
	}
	if reflect.DeepEqual(a, b) {
		return true
	}
	return yield(Diff{Path: path, A: a, B: b, HasA: true, HasB: true})
}

// side compares member k of two objects.
func side(path string, a, b map[string]any, k string, yield func(Diff) bool) bool {
	x, inA := a[k]
	y, inB := b[k]
	return step(Diff{Path: path, A: x, B: y, HasA: inA, HasB: inB}, yield)
}

// step yields d when one side is absent, and walks into it otherwise.
func step(d Diff, yield func(Diff) bool) bool {
	if !d.HasA || !d.HasB {
		return yield(d)
	}
	return walk(d.Path, d.A, d.B, yield)
}
