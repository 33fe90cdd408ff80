// Package goldens holds the conformance suite's golden files:
// goldens/<scenario-id>/<provider>/<model-name>/{transcript,requests,events}.json
// (see scenario.GoldenDir). Embedding them lets `conform certify` and
// conformtest compare any adapter's canonical output with the built-in
// adapters' without a checkout.
//
// File names must be valid for go:embed: no colon, asterisk, angle
// brackets, question mark, quotes, backquote, pipe or backslash.
package goldens

import "embed"

// FS holds this directory: every golden file (and this file).
//
//go:embed *
var FS embed.FS
