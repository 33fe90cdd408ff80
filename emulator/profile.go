package emulator

import (
	"slices"
	"strings"
)

// A Profile is the way one server family writes an API's wire format:
// where real servers depart from the reference API (or where the
// reference API itself has quirks a simpler picture would miss), written
// down as knobs the renderers read. Each knob cites the recording or the
// server source it comes from, in the profile's Evidence.
//
// A request is rendered with the profile its Reply names (Reply.Profile),
// else the server's (WithProfile), else its API's reference profile
// (ReferenceProfile). A profile shapes only the APIs it lists; any other
// API gets its reference profile. The emulator calibration test holds each
// profile to the real recordings of its server.
type Profile struct {
	// Name selects the profile: "openai", "vllm", "ollama", ...
	Name string `json:"name"`
	// APIs are the wire formats the profile shapes.
	APIs []API `json:"apis"`
	// Server says which server and versions the profile reflects.
	Server string `json:"server"`
	// Evidence names the recordings (testdata/recordings/...) and server
	// sources the knobs were taken from.
	Evidence string `json:"evidence"`

	Chat      ChatStyle      `json:"chat,omitzero"`
	Anthropic AnthropicStyle `json:"anthropic,omitzero"`
	Gemini    GeminiStyle    `json:"gemini,omitzero"`
	Responses ResponsesStyle `json:"responses,omitzero"`
}

// Applies reports whether p shapes api.
func (p *Profile) Applies(api API) bool { return slices.Contains(p.APIs, api) }

// UsagePlacement says where a Chat Completions stream reports usage.
type UsagePlacement string

// Usage placements.
const (
	// UsageChunk is a last chunk of its own with "choices": [] (OpenAI,
	// vLLM, Ollama).
	UsageChunk UsagePlacement = "chunk"
	// UsageOnFinish puts usage on the chunk that carries finish_reason
	// (llama.cpp, DeepSeek).
	UsageOnFinish UsagePlacement = "finish"
	// UsageRepeatFinish sends the finish chunk twice, the second time
	// with usage (OpenRouter).
	UsageRepeatFinish UsagePlacement = "repeat-finish"
)

// ArgumentStyle says how tool-call arguments are written and cut into
// stream deltas.
type ArgumentStyle struct {
	// Spaced writes the JSON as Python's json.dumps does, with ", " and
	// ": " (Anthropic, vLLM, DeepSeek); otherwise it is compact (OpenAI).
	Spaced bool `json:"spaced,omitempty"`
	// Uneven cuts the arguments into token-like pieces of varying size
	// (runs of word characters and runs of punctuation), as models emit
	// them; otherwise they come in WithChunkSize pieces.
	Uneven bool `json:"uneven,omitempty"`
	// Whole sends each call's arguments in one piece (Ollama, Gemini).
	Whole bool `json:"whole,omitempty"`
}

// ChatStyle shapes Chat Completions streams and bodies.
type ChatStyle struct {
	// StreamToolCallFinish is the finish_reason of a streamed turn that
	// made tool calls (when the reply sets no StopReason); empty means
	// "tool_calls". vLLM answers "stop" when the tool choice was forced
	// (named or required), and Ollama's streams did before 0.6.
	StreamToolCallFinish string `json:"stream_tool_call_finish,omitempty"`
	// RoleWithFirstToolCall puts the role and the first tool call's id and
	// name in the same chunk, with no role-only chunk before (OpenAI since
	// 2026), instead of a role chunk of its own.
	RoleWithFirstToolCall bool `json:"role_with_first_tool_call,omitempty"`
	// RoleEveryChunk repeats "role": "assistant" in every delta (Ollama,
	// OpenRouter).
	RoleEveryChunk bool `json:"role_every_chunk,omitempty"`
	// Arguments shapes tool-call arguments.
	Arguments ArgumentStyle `json:"arguments,omitzero"`
	// Usage is where a stream reports usage (default UsageChunk).
	Usage UsagePlacement `json:"usage,omitempty"`
	// UsageAlways reports usage without stream_options.include_usage
	// (OpenRouter, DeepSeek, llama.cpp).
	UsageAlways bool `json:"usage_always,omitempty"`
	// NullUsage writes "usage": null on every chunk before the usage, as
	// OpenAI does when include_usage is set and DeepSeek always does.
	NullUsage bool `json:"null_usage,omitempty"`
	// Obfuscation adds OpenAI's "obfuscation" padding field to every
	// chunk.
	Obfuscation bool `json:"obfuscation,omitempty"`
	// Comments are SSE comment lines sent before the first chunk
	// (OpenRouter's ": OPENROUTER PROCESSING").
	Comments []string `json:"comments,omitempty"`
	// ServiceTier and Fingerprint add service_tier "default" and this
	// system_fingerprint to every chunk; an empty Fingerprint omits it.
	ServiceTier bool   `json:"service_tier,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// StopReasonField adds vLLM's non-standard "stop_reason": null to the
	// finish choice.
	StopReasonField bool `json:"stop_reason_field,omitempty"`
	// NativeFinishReason adds OpenRouter's "native_finish_reason" (the
	// upstream provider's reason) to every choice.
	NativeFinishReason bool `json:"native_finish_reason,omitempty"`
	// Timings adds llama.cpp's "timings" object next to usage.
	Timings bool `json:"timings,omitempty"`
	// ReasoningField names the delta and message field carrying
	// Reply.Thinking: "reasoning_content" (vLLM, DeepSeek, llama.cpp) or
	// "reasoning" (Ollama, OpenRouter). WithChatReasoningField overrides
	// it; empty means reasoning is not shown, as OpenAI's Chat Completions
	// does not show it.
	ReasoningField string `json:"reasoning_field,omitempty"`
	// RequestIDHeader sends an x-request-id response header (OpenAI).
	RequestIDHeader bool `json:"request_id_header,omitempty"`
	// ReasoningDetails, when set, is the upstream format of OpenRouter's
	// "reasoning_details" (such as "xai-responses-v1"): each reasoning
	// delta repeats its text as a reasoning.summary entry, and a last
	// reasoning delta (its ReasoningField null) carries the reasoning's
	// signature as a reasoning.encrypted entry with an rs_emu_ id, as
	// OpenRouter relays xAI's reasoning; a non-streamed message has both
	// entries whole. Shown only where ReasoningField shows reasoning.
	ReasoningDetails string `json:"reasoning_details,omitempty"`
}

// AnthropicStyle shapes Messages streams.
type AnthropicStyle struct {
	// Pings sends {"type": "ping"} after the first content_block_start.
	Pings bool `json:"pings,omitempty"`
	// PadInside pads data lines with spaces inside the JSON object, before
	// its closing brace, as every recording of the API does; PadAfter pads
	// after it instead. With neither, lines are not padded.
	PadInside bool `json:"pad_inside,omitempty"`
	PadAfter  bool `json:"pad_after,omitempty"`
	// StopDetails adds "stop_details" (null, or the refusal's details) to
	// the message and to message_delta, as the API has since 2026.
	StopDetails bool `json:"stop_details,omitempty"`
	// Arguments shapes input_json_delta fragments.
	Arguments ArgumentStyle `json:"arguments,omitzero"`
	// RequestIDHeader sends a request-id response header.
	RequestIDHeader bool `json:"request_id_header,omitempty"`
}

// GeminiStyle shapes generateContent streams.
type GeminiStyle struct {
	// CRLF ends SSE lines with CRLF.
	CRLF bool `json:"crlf,omitempty"`
	// GoogleSpacing writes a space after each key's colon.
	GoogleSpacing bool `json:"google_spacing,omitempty"`
	// EmptyFinalChunk ends every stream, text-only turns included, with a
	// chunk holding one empty text part and the finishReason (Gemini 3);
	// otherwise a text-only turn puts finishReason on its last text chunk
	// (Gemini 2.5), and only tool-call turns end with the empty chunk.
	EmptyFinalChunk bool `json:"empty_final_chunk,omitempty"`
}

// ResponsesStyle shapes Responses streams.
type ResponsesStyle struct {
	// ArgumentsOnlyInDone sends no function_call_arguments.delta events:
	// the arguments come whole in .done (LM Studio).
	ArgumentsOnlyInDone bool `json:"arguments_only_in_done,omitempty"`
	// ReasoningText shows Reply.Thinking as the reasoning item's
	// reasoning_text content parts (content_part.added,
	// reasoning_text.delta and .done), whether or not the request asked
	// for a summary, as local servers stream a model's raw reasoning (LM
	// Studio); otherwise reasoning shows as summary parts when asked for.
	ReasoningText bool `json:"reasoning_text,omitempty"`
	// Obfuscation adds "obfuscation" to delta events (OpenAI).
	Obfuscation bool `json:"obfuscation,omitempty"`
	// RequestIDHeader sends an x-request-id response header (OpenAI).
	RequestIDHeader bool `json:"request_id_header,omitempty"`
}

// profiles are the built-in profiles, by name.
var profiles = func() map[string]Profile {
	m := map[string]Profile{}
	for _, p := range []Profile{
		{
			Name: "anthropic", APIs: []API{Anthropic},
			Server:   "Anthropic Messages API (api.anthropic.com, Vertex AI streamRawPredict)",
			Evidence: "anthropic/stream-thinking-signature, stream-parallel-tool-use-input-json-delta, stream-server-tool-search-then-tool-use, vertex-stream-text",
			Anthropic: AnthropicStyle{
				Pings: true, PadInside: true, StopDetails: true, RequestIDHeader: true,
				Arguments: ArgumentStyle{Spaced: true, Uneven: true},
			},
		},
		{
			Name: "openai", APIs: []API{OpenAIChat, OpenAIResponses},
			Server:   "OpenAI Chat Completions and Responses (api.openai.com, 2026)",
			Evidence: "openai-chat/stream-tool-call-include-usage, stream-parallel-tool-calls, stream-text-include-usage; openai-responses/stream-*",
			Chat: ChatStyle{
				RoleWithFirstToolCall: true, Arguments: ArgumentStyle{Uneven: true},
				Usage: UsageChunk, NullUsage: true, Obfuscation: true,
				ServiceTier: true, Fingerprint: "fp_emulator", RequestIDHeader: true,
			},
			Responses: ResponsesStyle{Obfuscation: true, RequestIDHeader: true},
		},
		{
			Name: "gemini", APIs: []API{Gemini},
			Server:   "Gemini API 2.5 models (generativelanguage.googleapis.com, Vertex AI)",
			Evidence: "gemini/stream-thought-parts, stream-image-inlinedata-input, vertex-stream-functioncall",
			Gemini:   GeminiStyle{CRLF: true, GoogleSpacing: true},
		},
		{
			Name: "gemini-3", APIs: []API{Gemini},
			Server:   "Gemini API 3 models",
			Evidence: "gemini/stream-text-after-function-response, stream-functioncall-thought-signature, stream-functioncall-with-id-thinking",
			Gemini:   GeminiStyle{CRLF: true, GoogleSpacing: true, EmptyFinalChunk: true},
		},
		{
			Name: "ollama-native", APIs: []API{Ollama},
			Server:   "Ollama native /api/chat (0.9 and later: thinking, done_reason)",
			Evidence: "ollama-native/ollama-nonstream-after-tool-result (key order, statistics, done_reason stop); ollama api/types.go ChatResponse (NDJSON lines, tool calls whole with object arguments and no id)",
		},
		{
			Name: "vllm", APIs: []API{OpenAIChat},
			Server:   "vLLM OpenAI-compatible server (0.6 to 0.24) with a tool parser",
			Evidence: "openai-chat/vllm-crusoe-stream-text-token-ids, vllm-nonstream-text; vllm/entrypoints/openai/serving_chat.py (forced tool choice finishes with \"stop\"; hermes parser writes json.dumps arguments)",
			Chat: ChatStyle{
				StreamToolCallFinish: "stop", Arguments: ArgumentStyle{Spaced: true, Uneven: true},
				Usage: UsageChunk, StopReasonField: true, ReasoningField: "reasoning_content",
			},
		},
		{
			Name: "ollama", APIs: []API{OpenAIChat},
			Server:   "Ollama /v1 OpenAI compatibility (before 0.6)",
			Evidence: "ollama openai/openai.go toChunk (role on every chunk, whole tool calls, finish_reason from done_reason \"stop\", fp_ollama)",
			Chat: ChatStyle{
				StreamToolCallFinish: "stop", RoleEveryChunk: true, Arguments: ArgumentStyle{Whole: true},
				Usage: UsageChunk, Fingerprint: "fp_ollama", ReasoningField: "reasoning",
			},
		},
		{
			Name: "lmstudio", APIs: []API{OpenAIChat, OpenAIResponses},
			Server:   "LM Studio server (0.3)",
			Evidence: "openai-responses/lmstudio-stream-reasoning-function-call (Responses: reasoning_text content parts, arguments only in .done); Chat Completions shape from the OpenAI reference, unrecorded",
			Chat: ChatStyle{
				Usage: UsageChunk, Fingerprint: "lmstudio", ReasoningField: "reasoning_content",
			},
			Responses: ResponsesStyle{ArgumentsOnlyInDone: true, ReasoningText: true},
		},
		{
			Name: "llamacpp", APIs: []API{OpenAIChat},
			Server:   "llama.cpp llama-server (b6000 and later)",
			Evidence: "openai-chat/llamacpp-nonstream-text; llama-server streams (usage and timings on the finish chunk, role chunk with content null)",
			Chat: ChatStyle{
				Usage: UsageOnFinish, UsageAlways: true, Timings: true,
				Fingerprint: "b6000-emulator", ReasoningField: "reasoning_content",
			},
		},
		{
			Name: "openrouter", APIs: []API{OpenAIChat},
			Server:   "OpenRouter (openrouter.ai/api/v1)",
			Evidence: "openai-chat/openrouter-stream-reasoning-details-tool-call, openrouter-nonstream-leading-whitespace",
			Chat: ChatStyle{
				RoleEveryChunk: true, Usage: UsageRepeatFinish, UsageAlways: true,
				Comments: []string{"OPENROUTER PROCESSING"}, NativeFinishReason: true,
				ReasoningField: "reasoning", ReasoningDetails: "xai-responses-v1",
			},
		},
		{
			Name: "deepseek", APIs: []API{OpenAIChat},
			Server:   "DeepSeek API (api.deepseek.com)",
			Evidence: "openai-chat/deepseek-stream-reasoning-then-tool-call",
			Chat: ChatStyle{
				Arguments: ArgumentStyle{Spaced: true, Uneven: true},
				Usage:     UsageOnFinish, UsageAlways: true, NullUsage: true,
				Fingerprint: "fp_emulator", ReasoningField: "reasoning_content",
			},
		},
	} {
		m[p.Name] = p
	}
	return m
}()

// Profiles returns the built-in profiles, sorted by name.
func Profiles() []Profile {
	out := make([]Profile, 0, len(profiles))
	for _, p := range profiles {
		out = append(out, clone(p))
	}
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupProfile returns the built-in profile called name.
func LookupProfile(name string) (Profile, bool) {
	p, ok := profiles[name]
	return clone(p), ok
}

// ReferenceProfile returns the profile of api's own service for model:
// "anthropic", "openai", "gemini", "gemini-3" for Gemini 3 models, or
// "ollama-native" for Ollama's native API.
func ReferenceProfile(api API, model string) Profile {
	name := "openai"
	switch api {
	case Anthropic:
		name = "anthropic"
	case Gemini:
		name = "gemini"
		if strings.HasPrefix(model, "gemini-3") {
			name = "gemini-3"
		}
	case Ollama:
		name = "ollama-native"
	}
	return clone(profiles[name])
}

// ProfileForServer returns the profile for an OpenAI-compatible server
// kind as the openaicompat adapter names it (vllm, ollama, lmstudio,
// llamacpp, openrouter); other kinds have none.
func ProfileForServer(kind string) (Profile, bool) {
	switch kind {
	case "vllm", "ollama", "lmstudio", "llamacpp", "openrouter", "deepseek":
		return LookupProfile(kind)
	}
	return Profile{}, false
}

func profileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func clone(p Profile) Profile {
	p.APIs = slices.Clone(p.APIs)
	p.Chat.Comments = slices.Clone(p.Chat.Comments)
	return p
}
