package protocol

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/metis-llm/metis/internal/schemacheck"
)

// Schemas holds the published JSON Schemas (draft 2020-12), by version:
// v2/to-adapter.schema.json (a line metis writes), v2/from-adapter.schema.json
// (a line the adapter writes) and v2/canonical.schema.json (the canonical
// types both refer to); v1/ holds version 1's, which stay published.
//
//go:embed v1/*.schema.json v2/*.schema.json
var Schemas embed.FS

const schemaBase = "https://github.com/metis-llm/metis/protocol/"

// versionSchemas are one version's compiled schemas.
type versionSchemas struct {
	toAdapter, fromAdapter *schemacheck.Schema
}

var (
	schemasOnce sync.Once
	compiled    map[string]versionSchemas
	schemasErr  error
)

// dir returns the schema directory of version ("v2" for metis.adapter/v2).
func dir(version string) string { return strings.TrimPrefix(version, "metis.adapter/") }

func compileSchemas() {
	compiled = map[string]versionSchemas{}
	for _, v := range Versions {
		read := func(name string) schemacheck.Resource {
			data, err := Schemas.ReadFile(dir(v) + "/" + name)
			if err != nil {
				panic(err) // embedded
			}
			return schemacheck.Resource{URL: schemaBase + dir(v) + "/" + name, Data: data}
		}
		var vs versionSchemas
		canon := read("canonical.schema.json")
		if vs.toAdapter, schemasErr = schemacheck.Compile(read("to-adapter.schema.json"), canon); schemasErr != nil {
			return
		}
		if vs.fromAdapter, schemasErr = schemacheck.Compile(read("from-adapter.schema.json"), canon); schemasErr != nil {
			return
		}
		compiled[v] = vs
	}
}

func schemasOf(version string) (versionSchemas, error) {
	schemasOnce.Do(compileSchemas)
	if schemasErr != nil {
		return versionSchemas{}, schemasErr
	}
	vs, ok := compiled[version]
	if !ok {
		return vs, fmt.Errorf("protocol %q is not one metis speaks (%s)", version, strings.Join(Versions, ", "))
	}
	return vs, nil
}

// ValidateFromAdapter checks one line an adapter wrote against the
// newest version's from-adapter.schema.json. The error names the first
// violation by JSON pointer.
func ValidateFromAdapter(line []byte) error { return ValidateFromAdapterVersion(Version, line) }

// ValidateToAdapter checks one line metis wrote against the newest
// version's to-adapter.schema.json.
func ValidateToAdapter(line []byte) error { return ValidateToAdapterVersion(Version, line) }

// ValidateFromAdapterVersion checks one line an adapter wrote against
// version's from-adapter.schema.json.
func ValidateFromAdapterVersion(version string, line []byte) error {
	vs, err := schemasOf(version)
	if err != nil {
		return err
	}
	return vs.fromAdapter.ValidateJSON(line)
}

// ValidateToAdapterVersion checks one line metis wrote against version's
// to-adapter.schema.json.
func ValidateToAdapterVersion(version string, line []byte) error {
	vs, err := schemasOf(version)
	if err != nil {
		return err
	}
	return vs.toAdapter.ValidateJSON(line)
}

// SchemaPath returns the path, under protocol/, of version's schema name
// ("from-adapter", "to-adapter").
func SchemaPath(version, name string) string { return dir(version) + "/" + name + ".schema.json" }
