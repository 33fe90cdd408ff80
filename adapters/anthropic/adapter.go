// Package anthropic is the metis adapter for Anthropic's Messages API
// (POST {base_url}/v1/messages, anthropic-version 2023-06-01).
//
// It translates canonical requests to the wire format and the provider's
// answers — streamed server-sent events or one JSON body — back to
// canonical responses and events through the shared adapters.Assembler, so
// both paths give the same canonical response.
//
// # Request mapping
//
//   - system: Request.SystemPrompt and the text of every SYSTEM message,
//     joined with "\n\n", go to the top-level system parameter.
//   - Roles alternate strictly: TOOL messages become user messages of
//     tool_result blocks, and consecutive messages of the same wire role
//     are merged. In a user message tool_result blocks come first, as the
//     API requires.
//   - A tool_result whose content is one text block is sent as a string,
//     otherwise as text and image blocks; is_error is always sent.
//   - Images are sent as base64 or url sources. Dropped whole with the
//     lossy-projection WARN (001 §7.3): file_ref images, images the model
//     does not accept, blocks a role cannot carry, thinking and
//     redacted_thinking from another provider or without a signature (the
//     API rejects unsigned thinking), and a tool_use that no tool_result
//     answers (a cancelled turn's call, which the API would reject).
//   - tool_choice none is sent as {"type":"none"} with the tools kept: the
//     current API accepts it, the history's tool_use blocks stay valid and
//     the prompt-cache prefix does not change.
//   - output_schema is served by a forced synthetic tool named
//     "structured_output" whose input_schema is the schema; its input comes
//     back as one text block holding the JSON, and the provider's tool_use
//     stop reason becomes end_turn. It cannot be combined with thinking,
//     since the API rejects forced tool use while thinking is enabled.
//   - Thinking is sent as {"type":"enabled","budget_tokens":N} for models
//     that can think: N is ThinkingConfig.BudgetTokens, else derived from
//     Effort (low 1024, medium 4096, high 16384), else 1024, and never
//     below the API minimum of 1024. N must be below max_tokens: when the
//     caller gave no max_output_tokens, max_tokens grows to N+4096; when
//     it did, N shrinks to fit or the request fails with invalid_request.
//
// Sampling parameters (temperature, top_p, stop_sequences) are sent as
// given; seed has no Messages API equivalent and is not sent. The API
// rejects a changed temperature, and tool_choice any or tool, while
// thinking is enabled; those 400s surface as invalid_request.
//
// Options (Config.Options, or per model): "beta" (string or list) is sent
// as the anthropic-beta header; "cache" (bool) marks the system prompt and
// the last tool with cache_control {"type":"ephemeral"}.
//
// # Response mapping
//
// Stop reasons: end_turn, max_tokens, stop_sequence and tool_use map to
// their canonical namesakes; pause_turn to end_turn; refusal to
// content_filter; model_context_window_exceeded to max_tokens; anything
// else to end_turn. The provider's reason is kept in ProviderStopReason.
// Server-side tool blocks (server_tool_use, web_search_tool_result, ...)
// are not canonical and are skipped with all their deltas, so a pause_turn
// answer cannot be resumed losslessly. Tool inputs are stored as compact
// JSON, streamed or not. An `event: error` mid-stream ends the stream
// with its classified error (see errors.go). Usage comes
// from message_start and is superseded by message_delta: output tokens
// always, input and cache counts when present. Response.ProviderRaw holds
// {"id","model","stop_sequence"} of the provider's message.
package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// DefaultBaseURL is the Messages API endpoint used when Config.BaseURL is
// empty.
const DefaultBaseURL = "https://api.anthropic.com"

// APIVersion is the anthropic-version header value the adapter speaks.
const APIVersion = "2023-06-01"

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "anthropic"

// Adapter is the Anthropic Messages adapter. It is safe for concurrent use.
type Adapter struct {
	rt       *adapters.Runtime
	endpoint string
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns an Adapter for cfg. cfg.APIKey is required; cfg.Name
// defaults to "anthropic" and cfg.BaseURL to DefaultBaseURL.
func New(cfg adapters.Config) (*Adapter, error) {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.APIKey == "" {
		return nil, adapters.NoAPIKey(&cfg, "anthropic")
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	return &Adapter{
		rt:       adapters.NewRuntime(cfg, classify),
		endpoint: base + "/v1/messages",
	}, nil
}

// Name returns the provider key this instance serves under.
func (a *Adapter) Name() string { return a.rt.Config.Name }

// Complete makes a non-streaming Messages call.
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	req = adapters.CallRequest(req)
	body, structured, err := a.encode(req, false)
	if err != nil {
		return nil, err
	}
	d := newDecoder(a.Name(), structured)
	return a.rt.Complete(ctx, req, a.newHTTPRequest(req.Model, body), d.decodeBody)
}

// Stream makes a streaming Messages call; see adapters.Adapter.Stream for
// the shape of the sequence.
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	req = adapters.CallRequest(req)
	body, structured, err := a.encode(req, true)
	if err != nil {
		return adapters.FailedStream(err)
	}
	d := newDecoder(a.Name(), structured)
	return a.rt.Stream(ctx, req, a.newHTTPRequest(req.Model, body), d.decodeStream)
}

// encode validates req, checks it against the model's capabilities and
// builds its wire body once for all attempts. Images the model cannot
// take are not refused: the request mapping drops them with the
// lossy-projection WARN.
func (a *Adapter) encode(req *canonical.Request, stream bool) ([]byte, bool, error) {
	err := canonical.ValidateHistory(req.Messages, req.Tools)
	if err == nil {
		err = adapters.CheckCapabilities(a.Name(), req, a.Capabilities(req.Model), stream, adapters.ImagesProjected())
	}
	if err != nil {
		return nil, false, adapters.PreflightError(err, a.Name(), req.RequestID)
	}
	body, structured, aerr := a.buildRequest(req, stream)
	if aerr != nil {
		return nil, false, adapters.PreflightError(aerr, a.Name(), req.RequestID)
	}
	return body, structured, nil
}

// newHTTPRequest returns the per-attempt request builder for body.
func (a *Adapter) newHTTPRequest(model string, body []byte) func(context.Context) (*http.Request, error) {
	cfg := &a.rt.Config
	beta := betaHeader(cfg.Option(model, "beta"))
	return func(ctx context.Context) (*http.Request, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("x-api-key", cfg.APIKey)
		hr.Header.Set("anthropic-version", APIVersion)
		hr.Header.Set("content-type", "application/json")
		if beta != "" {
			hr.Header.Set("anthropic-beta", beta)
		}
		for k, v := range cfg.ExtraHeaders {
			hr.Header.Set(k, v)
		}
		return hr, nil
	}
}

// betaHeader renders the "beta" option: a string, or a list of strings
// joined with commas.
func betaHeader(v any) string {
	switch b := v.(type) {
	case string:
		return b
	case []string:
		return strings.Join(b, ",")
	case []any:
		parts := make([]string, 0, len(b))
		for _, p := range b {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, ",")
	}
	return ""
}

// EstimateInputTokens estimates the request's input tokens without the
// network, with the estimator calibrated on the Messages API.
func (a *Adapter) EstimateInputTokens(req *canonical.Request) int {
	return adapters.EstimatorFor(DefaultName).Estimate(req)
}

// Cancel aborts the in-flight call with requestID.
func (a *Adapter) Cancel(requestID string) bool { return a.rt.Cancel(requestID) }

// Close releases idle connections.
func (a *Adapter) Close() error {
	a.rt.Caller.Client.CloseIdleConnections()
	return nil
}
