// Package jsontype names the JSON type of a decoded value for error
// messages, one way everywhere: canonical's schema checks, the harness's
// scenario loader and the adapters' option and schema errors all say
// "got a list" for the same value.
package jsontype

import (
	"encoding/json"
	"fmt"
)

// Name names v's JSON type: "null", "a boolean", "a number", "a string",
// "a list" or "an object", for what encoding/json, a YAML decoder or an
// ordered-JSON decoder produced. Other values are named by their Go type.
func Name(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64, uint64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
