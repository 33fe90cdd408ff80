package adaptertest

// PendingRecordings names the vendored recordings (api/name) that no
// adapter test decodes yet, with the issue that will. The coverage tests
// of each adapter package accept exactly these; the list only shrinks.
var PendingRecordings = map[string]string{
	"anthropic/vertex-nonstream-text-and-tool-use":                     "#20 cloud platforms (Vertex Claude)",
	"anthropic/vertex-stream-text":                                     "#20 cloud platforms (Vertex Claude)",
	"gemini/vertex-nonstream-functioncall":                             "#20 cloud platforms (Vertex Gemini)",
	"gemini/vertex-stream-functioncall":                                "#20 cloud platforms (Vertex Gemini)",
	"openai-chat/azure-error-400-content-filter-prompt":                "#20 cloud platforms (Azure)",
	"openai-chat/azure-nonstream-tool-call":                            "#20 cloud platforms (Azure)",
	"openai-chat/azure-stream-text-deployments-path-2024":              "#20 cloud platforms (Azure)",
	"openai-chat/bedrock-mantle-nonstream-reasoning-field":             "#16 fidelity (compatible servers)",
	"openai-chat/deepseek-stream-reasoning-then-tool-call":             "#16 fidelity (compatible servers)",
	"openai-chat/groq-error-404-model-not-found":                       "#16 fidelity (compatible servers)",
	"openai-chat/llamacpp-nonstream-text":                              "#16 fidelity (compatible servers)",
	"openai-chat/openrouter-nonstream-leading-whitespace":              "#16 fidelity (compatible servers)",
	"openai-chat/openrouter-stream-reasoning-details-tool-call":        "#16 fidelity (compatible servers)",
	"openai-chat/together-nonstream-finish-reason-eos":                 "#16 fidelity (compatible servers)",
	"openai-chat/vllm-crusoe-stream-text-token-ids":                    "#16 fidelity (compatible servers)",
	"openai-chat/vllm-nonstream-text":                                  "#16 fidelity (compatible servers)",
	"openai-responses/azure-nonstream-function-call":                   "#20 cloud platforms (Azure)",
	"openai-responses/azure-nonstream-reasoning-summary-function-call": "#20 cloud platforms (Azure)",
	"openai-responses/azure-stream-function-call":                      "#20 cloud platforms (Azure)",
}
