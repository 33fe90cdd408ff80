package toolschema_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/canonical/toolschema"
)

type weather struct {
	City  string   `json:"city" jsonschema:"the city, in English"`
	Units string   `json:"units,omitempty"`
	Days  uint8    `json:"days"`
	Tags  []string `json:"tags,omitempty"`
	Note  *string  `json:"note"`
	Where struct {
		Lat float64 `json:"lat"`
	} `json:"where"`
	hidden int
	Skip   bool `json:"-"`
}

type withMap struct {
	Labels map[string]string `json:"labels"`
}

type withAny struct {
	Value any `json:"value"`
}

type withEmpty struct {
	Opts struct{} `json:"opts"`
}

type cycle struct {
	Next *cycle `json:"next"`
}

func TestFor(t *testing.T) {
	got, err := toolschema.For[weather]()
	if err != nil {
		t.Fatal(err)
	}
	// Written by hand from the rules in the package doc: the range of
	// uint8 is left out, slices and pointers may be null, unexported and
	// "-" fields are not properties.
	want := `{"type":"object","properties":{
		"city":{"type":"string","description":"the city, in English"},
		"units":{"type":"string"},
		"days":{"type":"integer"},
		"tags":{"type":["null","array"],"items":{"type":"string"}},
		"note":{"type":["null","string"]},
		"where":{"type":"object","properties":{"lat":{"type":"number"}},"required":["lat"],"additionalProperties":false}},
		"required":["city","days","note","where"],"additionalProperties":false}`
	assertJSONEqual(t, want, got)
	if err := canonical.ValidateToolDefinition(canonical.ToolDefinition{Name: "weather", InputSchema: got, SideEffects: canonical.SideEffectsNone}); err != nil {
		t.Errorf("derived schema is not a valid tool definition: %v", err)
	}

	// A pointer to the struct is the same schema: the input is never null.
	ptr, err := toolschema.For[*weather]()
	if err != nil {
		t.Fatal(err)
	}
	assertJSONEqual(t, want, ptr)
}

func TestForRefusesOutsideTheSubset(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want []string // in the error
		sub  bool     // a subset violation (wraps invalid_tool_schema)
	}{
		{"map", reflect.TypeFor[withMap](), []string{"toolschema_test.withMap", "#/properties/labels/additionalProperties: additionalProperties must be false"}, true},
		{"interface", reflect.TypeFor[withAny](), []string{"#/properties/value: schema is a boolean"}, true},
		{"empty nested object", reflect.TypeFor[withEmpty](), []string{"#/properties/opts"}, true},
		{"not an object", reflect.TypeFor[string](), []string{"string", "#/type"}, true},
		{"cycle", reflect.TypeFor[cycle](), []string{"toolschema_test.cycle", "cycle detected"}, false},
		{"channel", reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](), []string{"chan"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := toolschema.ForType(tc.typ)
			if err == nil {
				t.Fatalf("want an error, got schema %s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var ae *canonical.AdapterError
			if isSub := errors.As(err, &ae) && ae.Code == canonical.CodeInvalidToolSchema; isSub != tc.sub {
				t.Errorf("wraps invalid_tool_schema: %v, want %v (%v)", isSub, tc.sub, err)
			}
		})
	}
}

func assertJSONEqual(t *testing.T, want string, got json.RawMessage) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w, g) {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
}
