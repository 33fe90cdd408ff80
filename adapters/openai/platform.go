package openai

import (
	"io"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// This file exports OpenAI's two dialects for platforms that serve
// OpenAI models on their own paths and credentials (Azure OpenAI): the
// same request bodies, decoders and error table as this adapter's,
// shared rather than copied.

// Dialect is one OpenAI wire dialect without its URL: the request body
// and the two decoders. ChatDialect is one; ResponsesDialect returns the
// other.
type Dialect interface {
	BuildRequest(c *driver.Call) ([]byte, error)
	DecodeStream(body io.Reader, a *driver.Assembler) error
	DecodeBody(body []byte, a *driver.Assembler) error
}

var _ Dialect = ChatDialect{}

// ResponsesDialect returns the Responses API dialect (the package doc's
// mapping) for the adapter named provider, which must equal Config.Name
// (the tool-id map key, the Provider of errors and the Metadata.Provider
// whose reasoning items are replayed). reasoning marks a reasoning model
// (encrypted reasoning requested, sampling parameters left out);
// parallelToolCalls, when set, is sent on requests with tools.
func ResponsesDialect(provider string, reasoning bool, parallelToolCalls *bool) Dialect {
	return responsesDialect{provider: provider, reasoning: reasoning, parallelToolCalls: parallelToolCalls}
}

// WithTools returns d for a call offering tools (canonical.Request.Tools):
// its decoders drop from each call of a tool sent strict the nulls strict
// mode adds for optional parameters (DropStrictNulls, ChatDialect.Tools).
// A platform calls it in Encode, as this package's adapter does, before
// keeping the dialect for its decoders.
func WithTools(d Dialect, tools []canonical.ToolDefinition) Dialect {
	if dd, ok := d.(dialect); ok {
		return dialectWithTools(dd, tools)
	}
	return d
}

func dialectWithTools(d dialect, tools []canonical.ToolDefinition) dialect {
	switch x := d.(type) {
	case ChatDialect:
		x.Tools = tools
		return x
	case responsesDialect:
		x.tools = tools
		return x
	}
	return d
}

// ModelTraits is what this package knows of an OpenAI model by name.
type ModelTraits struct {
	// Reasoning: a reasoning model (o-series, gpt-5).
	Reasoning bool
	// DeveloperRole: the model takes its system text as role developer
	// on Chat Completions.
	DeveloperRole bool
}

// Traits returns what this package knows of the model named wire
// (gpt-5, o4-mini, ...), by the prefix table of capabilities.go.
func Traits(wire string) ModelTraits {
	return ModelTraits{Reasoning: profileFor(wire).reasoning, DeveloperRole: developerRole(wire)}
}

// Capabilities returns this package's declaration for the model named
// wire on the Responses dialect (responses true) or Chat Completions.
func Capabilities(wire string, responses bool) canonical.Capabilities {
	return capabilitiesFor(wire, responses)
}
