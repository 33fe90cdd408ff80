package check

import (
	"github.com/metis-llm/metis/harness/replay/equiv"
)

// requestEquivalence lets a request expectation's json and absent checks
// hold up to the wire forms the request's API treats alike (package
// equiv, docs/request-matching.md): an expected system string is met by
// one text block, an expected absent field by its documented default.
// What a request must say is the contract; the bytes metis's own adapter
// sends are requests.json's to check.
type requestEquivalence struct {
	format equiv.Format
	body   []byte
}

// equivalenceOf is the equivalence for ex's request.
func equivalenceOf(ex *Exchange) requestEquivalence {
	return requestEquivalence{format: equiv.FormatOf(ex.Path), body: ex.Body}
}

// holds reports whether the request is equivalent to one whose value at
// ptr is want.
func (e requestEquivalence) holds(ptr string, want []byte) bool {
	return e.body != nil && equiv.Holds(e.format, e.body, ptr, want)
}

// holdsAbsent reports whether the request is equivalent to one without a
// value at ptr.
func (e requestEquivalence) holdsAbsent(ptr string) bool {
	return e.body != nil && equiv.HoldsAbsent(e.format, e.body, ptr)
}
