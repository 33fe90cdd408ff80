package certify_test

import (
	"errors"
	"fmt"

	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/harness/scenario"
)

// Every run belongs to one profile, the first that applies: a scenario
// with a tool round trip and nothing more demanding is a tools run.
func ExampleProfileOf() {
	sc, err := scenario.Parse("tools.yaml", []byte(`
id: tools/example
title: One tool call
models: [anthropic:claude-sonnet-4-6]
tools:
  - name: read_file
    description: Read a file.
    side_effects: read
    input_schema: {type: object, properties: {path: {type: string}}, required: [path]}
steps:
  - user: Read README.md.
  - call:
      reply: {tool_calls: [{name: read_file, input: {path: README.md}}]}
    expect: {stop_reason: tool_use}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(certify.ProfileOf(sc, "anthropic:claude-sonnet-4-6"))
	// Output: tools
}

// --profile takes a comma-separated list, given in any order.
func ExampleParseProfiles() {
	ps, err := certify.ParseProfiles("tools,core,streaming")
	fmt.Println(ps, err)
	_, err = certify.ParseProfiles("core,vision")
	fmt.Println(err != nil)
	// Output:
	// [core streaming tools] <nil>
	// true
}

// Verify checks a results bundle (what `conform verify` does): every
// file there and unchanged, the report consistent, the suite known.
func ExampleVerify() {
	v, err := certify.Verify("certification.tar.gz", certify.VerifyOptions{Published: true})
	var ve *certify.VerifyError
	switch {
	case errors.As(err, &ve):
		for _, p := range ve.Problems {
			fmt.Println("problem:", p)
		}
	case err != nil:
		fmt.Println(err)
	default:
		fmt.Println(v.Report.Verdict(), v.Suite, v.Digest)
	}
}
