// Package textdiff computes line diffs in the (-want +got) convention used
// by every comparison in the harness: golden files, unmatched replay
// requests and stream-versus-complete checks.
package textdiff

import (
	"strings"
)

// context is how many unchanged lines surround each change.
const context = 3

// maxCells bounds the dynamic-programming table; beyond it the differing
// middle is shown as a block removed and a block added.
const maxCells = 4 << 20

// Diff returns a line diff of want against got, or "" when they are equal.
// Removed lines start with "-", added lines with "+", and up to three
// unchanged lines of context with " "; "@@ line N @@" headers separate
// distant changes, N counting want's lines from 1.
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := lines(want), lines(got)
	ops := diffLines(a, b)
	return format(ops)
}

type opKind byte

const (
	opEq  opKind = ' '
	opDel opKind = '-'
	opAdd opKind = '+'
)

type op struct {
	kind  opKind
	text  string
	aLine int // 1-based line in want (for eq/del), or the line before (add)
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func diffLines(a, b []string) []op {
	// Common prefix and suffix are cheap and keep the table small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{opEq, a[i], i + 1})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, middle(ma, mb, pre)...)
	for i := len(a) - suf; i < len(a); i++ {
		ops = append(ops, op{opEq, a[i], i + 1})
	}
	return ops
}

// middle diffs the differing middle with a longest-common-subsequence
// table, or as one removed and one added block when it is too large.
func middle(a, b []string, offset int) []op {
	var ops []op
	if len(a)*len(b) > maxCells {
		for i, s := range a {
			ops = append(ops, op{opDel, s, offset + i + 1})
		}
		for _, s := range b {
			ops = append(ops, op{opAdd, s, offset + len(a)})
		}
		return ops
	}
	n, m := len(a), len(b)
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{opEq, a[i], offset + i + 1})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{opDel, a[i], offset + i + 1})
			i++
		default:
			ops = append(ops, op{opAdd, b[j], offset + i})
			j++
		}
	}
	return ops
}

func format(ops []op) string {
	// Mark the ops to print: every change and its context.
	show := make([]bool, len(ops))
	for i, o := range ops {
		if o.kind == opEq {
			continue
		}
		for k := max(0, i-context); k <= min(len(ops)-1, i+context); k++ {
			show[k] = true
		}
	}
	var sb strings.Builder
	last := -2
	for i, o := range ops {
		if !show[i] {
			continue
		}
		if last != i-1 {
			line := o.aLine
			if o.kind == opAdd {
				line++
			}
			sb.WriteString("@@ line ")
			sb.WriteString(itoa(line))
			sb.WriteString(" @@\n")
		}
		last = i
		sb.WriteByte(byte(o.kind))
		sb.WriteString(o.text)
		if !strings.HasSuffix(o.text, "\n") {
			sb.WriteString("\n\\ no newline at end\n")
		}
	}
	return sb.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
