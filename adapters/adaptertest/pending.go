package adaptertest

// PendingRecordings names the vendored recordings (api/name) that no
// adapter test decodes yet, with the issue that will. The coverage tests
// of each adapter package accept exactly these; the list only shrinks.
var PendingRecordings = map[string]string{
	"openai-chat/bedrock-mantle-nonstream-reasoning-field":      "#16 fidelity (compatible servers)",
	"openai-chat/deepseek-stream-reasoning-then-tool-call":      "#16 fidelity (compatible servers)",
	"openai-chat/groq-error-404-model-not-found":                "#16 fidelity (compatible servers)",
	"openai-chat/llamacpp-nonstream-text":                       "#16 fidelity (compatible servers)",
	"openai-chat/openrouter-nonstream-leading-whitespace":       "#16 fidelity (compatible servers)",
	"openai-chat/openrouter-stream-reasoning-details-tool-call": "#16 fidelity (compatible servers)",
	"openai-chat/together-nonstream-finish-reason-eos":          "#16 fidelity (compatible servers)",
	"openai-chat/vllm-crusoe-stream-text-token-ids":             "#16 fidelity (compatible servers)",
	"openai-chat/vllm-nonstream-text":                           "#16 fidelity (compatible servers)",
}

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

	"bedrock-anthropic/bedrock-invoke-nonstream-text-token-headers":    "adapters/bedrock",
	"bedrock-anthropic/bedrock-invoke-nonstream-tool-use":              "adapters/bedrock",
	"bedrock-anthropic/bedrock-invoke-stream-claude3-2024-no-padding":  "adapters/bedrock",
	"bedrock-anthropic/bedrock-invoke-stream-text":                     "adapters/bedrock",
	"bedrock-converse/bedrock-converse-stream-error-400-invalid-model": "adapters/bedrock",
}
