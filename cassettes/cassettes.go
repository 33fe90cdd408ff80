// Package cassettes holds the conformance suite's recorded HTTP traffic:
// go-vcr v4 cassettes, one per provider and scenario
// (cassettes/<provider>/<scenario-id>.yaml, see scenario.CassettePath),
// secrets scrubbed. Embedding them lets `conform certify` and
// conformtest replay the built-in suite without a checkout.
//
// File names must be valid for go:embed: no colon, asterisk, angle
// brackets, question mark, quotes, backquote, pipe or backslash.
package cassettes

import "embed"

// FS holds this directory: every cassette (and this file).
//
//go:embed *
var FS embed.FS
