package openaicompat

import (
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// extraFinishReasons are the finish reasons compatible servers send beyond
// OpenAI's set. The map is shared: copy it before adding to it.
var extraFinishReasons = map[string]canonical.StopReason{
	"error": canonical.StopError, // 004 §6: a degraded but parseable response
	"abort": canonical.StopError, // vLLM: the engine aborted the request
}

// dialect returns the Chat Completions dialect as configured for the
// call's model: the kind's defaults, then the adapter's options, then the
// model's. An unknown finish_reason is stop reason error (004 §8.2), and
// extra_content makes the round trip.
func (p *provider) dialect(c *driver.Call) openai.ChatDialect {
	o := p.opts.For(c.Model.ID)
	return openai.ChatDialect{
		Provider:               c.Adapter,
		DeveloperRole:          o.DeveloperRole,
		ParallelToolCalls:      o.ParallelToolCalls,
		ToolResultsAsUser:      o.ToolResultsAsUser,
		StreamOptions:          !o.NoStreamOptions,
		MaxTokensField:         o.MaxTokensField,
		NoStrict:               o.NoStrict,
		ReasoningEffort:        o.ReasoningEffort,
		ReasoningFields:        o.ReasoningFields,
		FinishReasons:          extraFinishReasons,
		UnknownFinishReason:    canonical.StopError,
		ExtraContent:           true,
		ReasoningDetails:       o.ReasoningDetails,
		ReplayReasoningContent: o.ReplayReasoning,
		APIPrefix:              p.apiPrefix(),
		Tools:                  c.Request.Tools,
		Logger:                 c.Log,
	}
}
