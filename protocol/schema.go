package protocol

import (
	"embed"
	"sync"

	"github.com/metis-llm/metis/internal/schemacheck"
)

// Schemas holds the published JSON Schemas (draft 2020-12), by version:
// v1/to-adapter.schema.json (a line metis writes), v1/from-adapter.schema.json
// (a line the adapter writes) and v1/canonical.schema.json (the canonical
// types both refer to).
//
//go:embed v1/*.schema.json
var Schemas embed.FS

const schemaBase = "https://github.com/metis-llm/metis/protocol/"

var (
	schemasOnce sync.Once
	toAdapter   *schemacheck.Schema
	fromAdapter *schemacheck.Schema
	schemasErr  error
)

func compileSchemas() {
	read := func(name string) schemacheck.Resource {
		data, err := Schemas.ReadFile(name)
		if err != nil {
			panic(err) // embedded
		}
		return schemacheck.Resource{URL: schemaBase + name, Data: data}
	}
	canon := read("v1/canonical.schema.json")
	if toAdapter, schemasErr = schemacheck.Compile(read("v1/to-adapter.schema.json"), canon); schemasErr != nil {
		return
	}
	fromAdapter, schemasErr = schemacheck.Compile(read("v1/from-adapter.schema.json"), canon)
}

// ValidateFromAdapter checks one line an adapter wrote against
// v1/from-adapter.schema.json. The error names the first violation by
// JSON pointer.
func ValidateFromAdapter(line []byte) error {
	schemasOnce.Do(compileSchemas)
	if schemasErr != nil {
		return schemasErr
	}
	return fromAdapter.ValidateJSON(line)
}

// ValidateToAdapter checks one line metis wrote against
// v1/to-adapter.schema.json.
func ValidateToAdapter(line []byte) error {
	schemasOnce.Do(compileSchemas)
	if schemasErr != nil {
		return schemasErr
	}
	return toAdapter.ValidateJSON(line)
}
