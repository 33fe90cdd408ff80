package canonical_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/metis-llm/metis/canonical"
)

// ValidateHistory refuses, before anything reaches the wire, a history
// no provider would take, naming the message and block at fault.
func ExampleValidateHistory() {
	msgs := []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Read README.md"}}},
		{Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{
			ToolUseID: "tu_01JD0000000000000000000000",
			Content:   canonical.Blocks{canonical.TextBlock{Text: "# metis"}},
		}}},
	}
	err := canonical.ValidateHistory(msgs, nil)
	var ae *canonical.AdapterError
	if errors.As(err, &ae) {
		fmt.Println(ae.Class, ae.Retryable)
		fmt.Println(ae.Message)
	}
	// Output:
	// invalid_request false
	// messages[1].content[0]: tool_result references unknown tool_use id tu_01JD0000000000000000000000; it must answer a tool_use in an earlier message
}

// Every failure is an *AdapterError with one closed class; branch on the
// class (and the finer code), never on the message.
func ExampleAdapterError() {
	var err error = fmt.Errorf("calling the model: %w",
		canonical.NewError(canonical.ErrRateLimit, canonical.CodeQuotaExceeded, "You exceeded your current quota"))

	var ae *canonical.AdapterError
	if errors.As(err, &ae) {
		switch {
		case ae.Code == canonical.CodeQuotaExceeded:
			fmt.Println("out of quota: retrying will not help")
		case ae.Class == canonical.ErrRateLimit:
			fmt.Println("rate limited: retry after", ae.RetryAfter)
		}
	}
	// Output: out of quota: retrying will not help
}

// CanonicalJSON is the form metis hashes and compares: the same for the
// same content whatever the key order or spacing, numbers as written.
func ExampleCanonicalJSON() {
	a, _ := canonical.CanonicalJSON(json.RawMessage(`{"path": "README.md", "lines": [1, 2.50]}`))
	b, _ := canonical.CanonicalJSON(json.RawMessage(`{"lines":[1,2.50],"path":"README.md"}`))
	fmt.Println(string(a))
	fmt.Println(string(a) == string(b))
	// Output:
	// {"lines":[1,2.50],"path":"README.md"}
	// true
}

// A stored message decodes into its typed blocks; a block type this
// version does not know is kept, verbatim, as an UnknownBlock.
func ExampleDecodeMessage() {
	m, err := canonical.DecodeMessage([]byte(`{"id":"01JD0000000000000000000000","session_id":"s1","role":"user",
		"schema_version":1,"created_at":"2026-01-01T00:00:00Z",
		"content":[{"type":"text","text":"Hello"},{"type":"hologram","frames":3}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range m.Content {
		fmt.Printf("%s %T\n", b.Type(), b)
	}
	// Output:
	// text canonical.TextBlock
	// hologram canonical.UnknownBlock
}
