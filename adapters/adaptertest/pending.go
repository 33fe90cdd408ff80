package adaptertest

// PendingRecordings names the vendored recordings (api/name) that no
// adapter test decodes yet, with the issue that will. The coverage tests
// of each adapter package accept exactly these; the list only shrinks.
var PendingRecordings = map[string]string{}

// PlatformRecordings names the vendored recordings of the cloud
// platforms (api/name) that a platform adapter's tests decode, with the
// package whose tests do: they sit in the folders of the wire format they
// carry (anthropic/vertex-*, openai-chat/azure-*, ...), whose provider
// package's coverage test accepts them. Each platform package checks
// that its entries are exactly the recordings it tests.
var PlatformRecordings = map[string]string{
	"anthropic/vertex-nonstream-text-and-tool-use": "adapters/vertex",
	"anthropic/vertex-stream-text":                 "adapters/vertex",
	"gemini/vertex-nonstream-functioncall":         "adapters/vertex",
	"gemini/vertex-stream-functioncall":            "adapters/vertex",

	"openai-chat/azure-error-400-content-filter-prompt":                "adapters/azure",
	"openai-chat/azure-nonstream-tool-call":                            "adapters/azure",
	"openai-chat/azure-stream-text-deployments-path-2024":              "adapters/azure",
	"openai-responses/azure-nonstream-function-call":                   "adapters/azure",
	"openai-responses/azure-nonstream-reasoning-summary-function-call": "adapters/azure",
	"openai-responses/azure-stream-function-call":                      "adapters/azure",

	"bedrock-anthropic/bedrock-invoke-nonstream-text-token-headers":   "adapters/bedrock",
	"bedrock-anthropic/bedrock-invoke-nonstream-tool-use":             "adapters/bedrock",
	"bedrock-anthropic/bedrock-invoke-stream-claude3-2024-no-padding": "adapters/bedrock",
	"bedrock-anthropic/bedrock-invoke-stream-text":                    "adapters/bedrock",

	"bedrock-converse/bedrock-converse-nonstream-tool-use":             "adapters/bedrockconverse",
	"bedrock-converse/bedrock-converse-stream-error-400-invalid-model": "adapters/bedrockconverse",
	"bedrock-converse/bedrock-converse-stream-reasoning-signature":     "adapters/bedrockconverse",
	"bedrock-converse/bedrock-converse-stream-tool-use":                "adapters/bedrockconverse",
}

// ServerRecordings names the vendored recordings of OpenAI-compatible
// servers (api/name) that adapters/openaicompat's tests decode, each
// configured as that server is: they sit in the folder of the wire
// format they speak (openai-chat), whose provider package's coverage test
// accepts them. adapters/openaicompat checks that the list is exactly
// the recordings it tests.
var ServerRecordings = map[string]string{
	"openai-chat/bedrock-mantle-nonstream-reasoning-field":      "Amazon Bedrock Mantle",
	"openai-chat/deepseek-stream-reasoning-then-tool-call":      "DeepSeek",
	"openai-chat/groq-error-404-model-not-found":                "Groq",
	"openai-chat/llamacpp-nonstream-text":                       "llama.cpp",
	"openai-chat/openrouter-nonstream-leading-whitespace":       "OpenRouter",
	"openai-chat/openrouter-stream-reasoning-details-tool-call": "OpenRouter",
	"openai-chat/together-nonstream-finish-reason-eos":          "Together AI",
	"openai-chat/vllm-crusoe-stream-text-token-ids":             "vLLM",
	"openai-chat/vllm-nonstream-text":                           "vLLM",
}
