// Package scenarios is metis's conformance suite: YAML scenario scripts,
// one per file, named after their ids (tools/single-round-trip.yaml has id
// tools/single-round-trip), and schema.json, the JSON Schema (2020-12)
// every file must satisfy. The harness package documents the format and
// runs the suite; embedding it lets `conform` and third parties run the
// built-in suite without a checkout.
package scenarios

import "embed"

// Schema is schema.json.
//
//go:embed schema.json
var Schema []byte

// FS holds this directory: schema.json and every scenario file.
//
//go:embed *
var FS embed.FS
