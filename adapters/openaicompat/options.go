package openaicompat

// optKind is the option naming the server kind, read by parseKind before
// the other options are decoded (their defaults depend on it).
const optKind = "kind"

// options are the adapter's and each model's options (the package doc
// lists them). kind and api_prefix are set for the whole adapter only.
type options struct {
	Kind              string   `option:"kind,adapter"`
	APIPrefix         *string  `option:"api_prefix,adapter"`
	ToolResultsAsUser bool     `option:"tool_results_as_user"`
	NoStreamOptions   bool     `option:"no_stream_options"`
	ReasoningFields   []string `option:"reasoning_fields" enum:"reasoning_content|reasoning"`
	MaxTokensField    string   `option:"max_tokens_field" enum:"max_tokens|max_completion_tokens"`
	NoStrict          bool     `option:"no_strict"`
	ReasoningEffort   bool     `option:"reasoning_effort"`
	DeveloperRole     bool     `option:"developer_role"`
	ParallelToolCalls *bool    `option:"parallel_tool_calls"`
	ReasoningDetails  bool     `option:"reasoning_details"`
	ReplayReasoning   bool     `option:"replay_reasoning_content"`
}

// defaultOptions are a kind's knobs before any option: both reasoning
// fields, its own first (servers move between them: newer vLLM sends
// both with the same text, and the dialect reads only the first present),
// "max_tokens" (the name every compatible server accepts; only OpenAI
// itself has moved to max_completion_tokens), and no strict-schema
// transform on local servers, whose constrained decoding does not need it
// (nor on DeepSeek, which takes "strict" only on its beta endpoint), and
// the reasoning round trip of the servers that need it: OpenRouter's
// reasoning_details, DeepSeek's reasoning_content.
func defaultOptions(k Kind) options {
	fields := []string{"reasoning_content", "reasoning"}
	if profiles[k].reasoningField == "reasoning" {
		fields[0], fields[1] = fields[1], fields[0]
	}
	return options{
		ReasoningFields:  fields,
		MaxTokensField:   "max_tokens",
		NoStrict:         !profiles[k].hosted && k != KindGeneric || k == KindDeepSeek,
		ReasoningDetails: profiles[k].reasoningDetails,
		ReplayReasoning:  profiles[k].replayReasoning,
	}
}
