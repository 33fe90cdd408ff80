// Package scenarios is metis's conformance suite: YAML scenario scripts,
// one per file, named after their ids (tools/single-round-trip.yaml has id
// tools/single-round-trip); schema.json, the JSON Schema (2020-12) every
// file must satisfy; columns.yaml, the matrix's columns; and
// spec-cases.yaml, the test cases the specification names, which
// scenarios' spec: references are checked against. The harness package documents the format and
// runs the suite; embedding it lets `conform` and third parties run the
// built-in suite without a checkout.
package scenarios

import "embed"

// Schema is schema.json.
//
//go:embed schema.json
var Schema []byte

// Columns is columns.yaml: the conformance matrix's columns.
//
//go:embed columns.yaml
var Columns []byte

// SpecCases is spec-cases.yaml: the test cases the specification names.
//
//go:embed spec-cases.yaml
var SpecCases []byte

// FS holds this directory: schema.json and every scenario file.
//
//go:embed *
var FS embed.FS
