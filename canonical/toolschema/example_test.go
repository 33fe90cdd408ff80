package toolschema_test

import (
	"fmt"

	"github.com/metis-llm/metis/canonical/toolschema"
)

// A tool's input declared as a Go struct: the schema every provider
// accepts, checked against the portable subset.
func ExampleFor() {
	type Input struct {
		City  string `json:"city" jsonschema:"the city, in English"`
		Units string `json:"units,omitempty" jsonschema:"celsius or fahrenheit"`
	}
	schema, err := toolschema.For[Input]()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(schema))

	_, err = toolschema.For[struct {
		Labels map[string]string `json:"labels"`
	}]()
	fmt.Println(err != nil)
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"the city, in English"},"units":{"type":"string","description":"celsius or fahrenheit"}},"required":["city"],"additionalProperties":false}
	// true
}
