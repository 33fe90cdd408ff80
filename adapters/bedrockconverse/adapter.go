// Package bedrockconverse is the metis adapter for Amazon Bedrock's
// Converse API, the runtime's one wire format for every model family
// (Claude, Nova, Llama, Mistral, ...):
//
//	POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse
//	POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse-stream
//
// The model id (or inference profile, or ARN) is the path segment,
// escaped as the AWS SDKs escape it (":" is %3A, "/" %2F). The endpoint,
// the credentials (Bedrock API key, SigV4 with service "bedrock"), the
// event-stream framing and the exception table are adapters/bedrock's,
// shared rather than copied; this package is the Converse mapping.
//
// # Requests
//
//	canonical                       Converse
//	SystemPrompt, SYSTEM messages   system [{text}] (one block, texts joined with "\n\n")
//	USER, TOOL messages             role "user" (consecutive ones merged; toolResult blocks first)
//	ASSISTANT messages              role "assistant"
//	TextBlock                       {text} (empty texts are left out: the API rejects them)
//	ImageBlock (base64)             {image: {format: png|jpeg|gif|webp, source: {bytes}}};
//	                                URL and file_ref images are dropped with the lossy-projection WARN
//	ToolUseBlock                    {toolUse: {toolUseId, name, input}}; a call no result answers is dropped
//	ToolResultBlock                 {toolResult: {toolUseId, content: [{text}|{image}], status}}
//	                                (status "error" for IsError, else "success")
//	ThinkingBlock                   {reasoningContent: {reasoningText: {text, signature}}}, only in
//	                                this adapter's own messages with a signature (sent back unchanged);
//	                                another provider's reasoning is dropped, as foreign signatures are
//	RedactedThinkingBlock           {reasoningContent: {redactedContent}} (own messages only)
//	MaxOutputTokens, Temperature,   inferenceConfig {maxTokens, temperature, topP, stopSequences}
//	  TopP, StopSequences
//	Tools                           toolConfig.tools [{toolSpec: {name, description, inputSchema: {json}}}]
//	ToolChoice auto|any|tool        toolConfig.toolChoice {auto: {}} | {any: {}} | {tool: {name}};
//	                                none sends no toolChoice (Converse has no "none"), and no
//	                                toolConfig at all unless the history holds tool blocks
//	Thinking (Claude)               additionalModelRequestFields.thinking {type: enabled, budget_tokens}
//	                                (budget: BudgetTokens, else 1024/4096/16384 for low/medium/high,
//	                                at least 1024; maxTokens raised above it when unset)
//
// # Responses
//
// A Converse answer is {output: {message: {role, content}}, stopReason,
// usage, metrics}; content blocks are {text}, {toolUse: {toolUseId, name,
// input}} and {reasoningContent: {reasoningText: {text, signature}} |
// {redactedContent}}. stopReason maps: end_turn → end_turn, tool_use →
// tool_use, max_tokens and model_context_window_exceeded → max_tokens,
// stop_sequence → stop_sequence, guardrail_intervened and
// content_filtered → content_filter, anything else → end_turn. usage
// {inputTokens, outputTokens, cacheReadInputTokens,
// cacheWriteInputTokens} is the canonical usage (the older
// cacheReadInputTokenCount spelling is read when the newer is absent);
// metrics and serverToolUsage are not canonical.
//
// # Streams
//
// ConverseStream answers application/vnd.amazon.eventstream; each event
// frame's :event-type names the event and its payload is the event's
// JSON itself (no base64 "bytes" wrapper), with a "p" padding member:
//
//	messageStart       {role}                                    message.start
//	contentBlockStart  {contentBlockIndex, start: {toolUse:      tool.use_start
//	                    {toolUseId, name}}}
//	contentBlockDelta  {contentBlockIndex, delta: {text} |        text, tool-input (raw string
//	                    {toolUse: {input}} | {reasoningContent:   pieces, the first often ""),
//	                    {text} | {signature} | {redactedContent}}} thinking, signature
//	contentBlockStop   {contentBlockIndex}                       block end
//	messageStop        {stopReason}                              the stop reason
//	metadata           {usage, metrics}                          usage; message.complete
//
// Text and reasoning blocks have no contentBlockStart: the first delta
// opens them. An exception frame (:message-type exception,
// :exception-type throttlingException, validationException,
// modelStreamErrorException, internalServerException,
// serviceUnavailableException, ...) ends the stream with its classified
// error; a stream that ends after messageStop without metadata completes
// without usage.
//
// # Errors
//
// adapters/bedrock's table: the exception named by x-amzn-ErrorType
// (ValidationException, ThrottlingException, AccessDeniedException, ...)
// or, without it, the status, with the {"message"} body as the message.
//
// # Capabilities
//
// Declared per model family from the id (ARN path and geography prefix
// removed): Claude (anthropic.*) as the Anthropic adapter declares the
// model, less structured output and prompt caching, which this adapter
// does not map; Amazon Nova tools and streaming, images except on Micro,
// no thinking; Llama, Mistral and unknown families text, system prompt
// and streaming only — conservative, since their tool and image support
// through Converse differs from model to model. models.yaml
// capabilities: overrides widen a model that can do more.
//
// # Options
//
// "region" (adapter only; default $AWS_REGION, then $AWS_DEFAULT_REGION)
// picks the endpoint; Config.BaseURL replaces it (the region still
// scopes the signature). Credentials are adapters/bedrock's, in its
// order.
package bedrockconverse

import (
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/bedrock"
	"github.com/metis-llm/metis/adapters/driver"
)

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "bedrock-converse"

// Info is what the driver needs to know about this provider. Credentials
// are checked by New itself, since they may come from the environment.
var Info = driver.Info{
	Name:            DefaultName,
	Key:             driver.KeyOptional,
	Estimator:       estimator,
	ImagesProjected: true, // Encode drops images it cannot send with the WARN
}

// options are the adapter's and each model's options.
type options struct {
	Region string `option:"region,adapter"`
}

// provider is the Converse API on Bedrock.
type provider struct {
	*bedrock.Access
	name string
}

// New returns the Converse adapter for cfg, with credentials from
// Config.APIKey or the environment (see adapters/bedrock).
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return NewWithCredentials(cfg, nil)
}

// NewWithCredentials is New with creds signing requests when cfg has no
// APIKey; nil means the environment's.
func NewWithCredentials(cfg adapters.Config, creds aws.CredentialsProvider) (*driver.Adapter, error) {
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, options{})
		if err != nil {
			return nil, err
		}
		acc, err := bedrock.NewAccess(cfg, opts.Adapter().Region, creds)
		if err != nil {
			return nil, err
		}
		return &provider{Access: acc, name: cfg.Name}, nil
	})
}

var (
	_ driver.Provider          = (*provider)(nil)
	_ driver.RequestAuthorizer = (*provider)(nil)
)
