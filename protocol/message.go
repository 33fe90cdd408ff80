package protocol

import (
	"encoding/json"
	"errors"
	"time"

	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Version names the newest protocol version, the one metis proposes in
// init; ready names the one the adapter speaks.
const Version = V2

// The protocol versions metis speaks. V2 adds to V1 canonical tool ids
// with a tool_ids table in requests and answers, now (metis's clock) on
// requests and slept, the probe request and the lifecycle line.
const (
	V1 = "metis.adapter/v1"
	V2 = "metis.adapter/v2"
)

// Versions lists the versions metis speaks, oldest first.
var Versions = []string{V1, V2}

// Minor is the newest minor version of V2 metis speaks. Minor version 1
// adds the token lines: an adapter whose ready declares minor 1 may be
// told in init's config that the run has a token source (tokens), and
// then asks metis for OAuth access tokens with token lines. A V2 adapter
// that declares no minor version is never sent anything of minor 1.
const Minor = 1

// Message types, metis to adapter.
const (
	TypeInit     = "init"
	TypeComplete = "complete"
	TypeStream   = "stream"
	TypeNext     = "next"
	TypeCancel   = "cancel"
	TypeSlept    = "slept"
	TypeProbe    = "probe" // v2; the adapter's answer has the same type
	TypeToken    = "token" // v2 minor 1: the answer to the adapter's token line, which has the same type
)

// Message types, adapter to metis. TypeCapabilities and TypeEstimate go
// both ways: the request and its answer.
const (
	TypeReady        = "ready"
	TypeCapabilities = "capabilities"
	TypeEstimate     = "estimate"
	TypeResponse     = "response"
	TypeEvent        = "event"
	TypeEnd          = "end"
	TypeError        = "error"
	TypeAttempt      = "attempt"
	TypeSleep        = "sleep"
	TypeLog          = "log"
	TypeLifecycle    = "lifecycle" // v2
)

// Message is one line of the protocol, in either direction: Type says
// which fields are set (the schemas in v2/ and v1/ say exactly).
type Message struct {
	Type string `json:"type"`
	// ID is the request's id on everything but log lines: metis picks it,
	// the adapter's answers and everything it says about that call carry
	// it.
	ID string `json:"id,omitempty"`

	Protocol string       `json:"protocol,omitempty"` // init, ready
	Config   *Config      `json:"config,omitempty"`   // init
	Adapter  *AdapterInfo `json:"adapter,omitempty"`  // ready
	Probe    bool         `json:"probe,omitempty"`    // ready (v2): the adapter answers probe requests
	// Minor is the minor version of V2 the adapter speaks (ready): 1 when
	// it understands token lines.
	Minor int `json:"minor,omitempty"`

	// ToolIDs maps canonical tool ids to the provider's (v2): on a
	// request, for the ids it holds; on an event or response, for the ids
	// the adapter minted.
	ToolIDs map[string]string `json:"tool_ids,omitempty"`
	// RawInputs holds, by tool id, the text of the tool inputs on the
	// line that contain line breaks (v2): a line carries them compacted,
	// and Decode puts this text back.
	RawInputs map[string]string `json:"raw_inputs,omitempty"`
	// Now is metis's clock when it wrote a request or slept line (v2).
	Now *time.Time `json:"now,omitempty"`

	Model   string             `json:"model,omitempty"`   // capabilities, probe (requests)
	Request *canonical.Request `json:"request,omitempty"` // estimate, complete, stream (requests)

	Capabilities *canonical.Capabilities `json:"capabilities,omitempty"` // capabilities (answer)
	InputTokens  *int                    `json:"input_tokens,omitempty"` // estimate (answer)
	Response     *canonical.Response     `json:"response,omitempty"`     // response
	RawBody      json.RawMessage         `json:"raw_body,omitempty"`     // response: the provider's body, verbatim
	Event        *canonical.StreamEvent  `json:"event,omitempty"`        // event
	Error        *Error                  `json:"error,omitempty"`        // error
	Attempt      *Attempt                `json:"attempt,omitempty"`      // attempt
	MS           *int64                  `json:"ms,omitempty"`           // sleep
	Lifecycle    *Lifecycle              `json:"lifecycle,omitempty"`    // lifecycle (v2)
	Token        *Token                  `json:"token,omitempty"`        // token (metis's answer; v2 minor 1)

	Level   string         `json:"level,omitempty"`   // log: debug, info, warn, error
	Message string         `json:"message,omitempty"` // log
	Attrs   map[string]any `json:"attrs,omitempty"`   // log
}

// Config is an adapter instance's configuration (000 §3.2), as init
// carries it: adapters.Config without what cannot cross a process
// boundary (the HTTP client, clock and observers, which the protocol
// replaces with attempt and sleep lines).
type Config struct {
	Name         string            `json:"name"`
	Type         string            `json:"type"`
	BaseURL      string            `json:"base_url"`
	APIKey       string            `json:"api_key,omitempty"`
	TimeoutMS    int64             `json:"timeout_ms"`
	MaxRetries   int               `json:"max_retries"`
	ExtraHeaders map[string]string `json:"extra_headers,omitempty"`
	Options      map[string]any    `json:"options,omitempty"`
	Models       map[string]Model  `json:"models"`
	// Tokens says that the run has a token source (adapters.Config.Tokens):
	// the adapter asks metis for an access token with a token line before
	// an attempt, or after a 401, and sends it as its bearer token. Only
	// an adapter whose ready declared minor version 1 is told (v2 minor
	// 1).
	Tokens bool `json:"tokens,omitempty"`
}

// Token is an OAuth 2 access token, metis's answer to a token line (v2
// minor 1). ExpiresAt is on metis's clock, the one now carries; nil
// means the token does not expire.
type Token struct {
	AccessToken string     `json:"access_token"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
}

// TokenFrom returns t's protocol form.
func TokenFrom(t *oauth2.Token) *Token {
	out := &Token{AccessToken: t.AccessToken}
	if !t.Expiry.IsZero() {
		e := t.Expiry
		out.ExpiresAt = &e
	}
	return out
}

// OAuth2 returns t as a bearer oauth2.Token.
func (t *Token) OAuth2() *oauth2.Token {
	out := &oauth2.Token{AccessToken: t.AccessToken, TokenType: "Bearer"}
	if t.ExpiresAt != nil {
		out.Expiry = *t.ExpiresAt
	}
	return out
}

// Model is one registry model the instance serves.
type Model struct {
	WireName     string          `json:"wire_name"`
	Options      map[string]any  `json:"options,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
}

// ConfigFrom returns c's protocol form.
func ConfigFrom(c adapters.Config) *Config {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 600 * time.Second // adapters.Config's default
	}
	out := &Config{
		Name: c.Name, Type: c.Type, BaseURL: c.BaseURL, APIKey: c.APIKey,
		TimeoutMS: timeout.Milliseconds(), MaxRetries: c.MaxRetries,
		ExtraHeaders: c.ExtraHeaders, Options: c.Options, Models: map[string]Model{},
	}
	for id := range c.Models {
		m := c.Model(id)
		out.Models[id] = Model{WireName: m.WireName, Options: m.Options, Capabilities: m.Capabilities}
	}
	return out
}

// AdaptersConfig returns the adapters.Config c describes.
func (c *Config) AdaptersConfig() adapters.Config {
	out := adapters.Config{
		Name: c.Name, Type: c.Type, BaseURL: c.BaseURL, APIKey: c.APIKey,
		Timeout: time.Duration(c.TimeoutMS) * time.Millisecond, MaxRetries: c.MaxRetries,
		ExtraHeaders: c.ExtraHeaders, Options: c.Options, Models: map[string]adapters.ModelConfig{},
	}
	for id, m := range c.Models {
		out.Models[id] = adapters.ModelConfig{ID: id, Adapter: c.Name, WireName: m.WireName, Options: m.Options, Capabilities: m.Capabilities}
	}
	return out
}

// AdapterInfo identifies the adapter program (ready).
type AdapterInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Error is a canonical.AdapterError on the wire, the retry hint in
// milliseconds.
type Error struct {
	Class             canonical.ErrorClass `json:"class"`
	Code              string               `json:"code,omitempty"`
	Status            int                  `json:"status,omitempty"`
	Message           string               `json:"message"`
	Retryable         bool                 `json:"retryable,omitempty"`
	ProviderRequestID string               `json:"provider_request_id,omitempty"`
	RetryAfterMS      int64                `json:"retry_after_ms,omitempty"`
	Attempts          int                  `json:"attempts,omitempty"`
}

// ErrorFrom returns err's protocol form: its AdapterError's fields, or
// class other with err's text.
func ErrorFrom(err error) *Error {
	var ae *canonical.AdapterError
	if !errors.As(err, &ae) {
		return &Error{Class: canonical.ErrOther, Message: err.Error()}
	}
	msg := ae.Message
	if msg == "" {
		msg = ae.Error()
	}
	return &Error{
		Class: ae.Class, Code: ae.Code, Status: ae.Status, Message: msg, Retryable: ae.Retryable,
		ProviderRequestID: ae.ProviderRequestID, RetryAfterMS: ae.RetryAfter.Milliseconds(), Attempts: ae.Attempts,
	}
}

// AdapterError returns e as the AdapterError of provider's request.
func (e *Error) AdapterError(provider, requestID string) *canonical.AdapterError {
	return &canonical.AdapterError{
		Class: e.Class, Code: e.Code, Provider: provider, Status: e.Status, Message: e.Message,
		Retryable: e.Retryable, RequestID: requestID, ProviderRequestID: e.ProviderRequestID,
		RetryAfter: time.Duration(e.RetryAfterMS) * time.Millisecond, Attempts: e.Attempts,
	}
}

// Attempt is one HTTP attempt of a call (adapters.Attempt).
type Attempt struct {
	N      int    `json:"n"`
	Status int    `json:"status"`
	Error  *Error `json:"error,omitempty"`
	WaitMS int64  `json:"wait_ms,omitempty"`
}

// AttemptFrom returns a's protocol form.
func AttemptFrom(a adapters.Attempt) *Attempt {
	out := &Attempt{N: a.N, Status: a.Status, WaitMS: a.Wait.Milliseconds()}
	if a.Err != nil {
		out.Error = ErrorFrom(a.Err)
	}
	return out
}

// AdaptersAttempt returns a as an adapters.Attempt of provider's request.
func (a *Attempt) AdaptersAttempt(provider, requestID string) adapters.Attempt {
	out := adapters.Attempt{RequestID: requestID, N: a.N, Status: a.Status, Wait: time.Duration(a.WaitMS) * time.Millisecond}
	if a.Error != nil {
		out.Err = a.Error.AdapterError(provider, requestID)
	}
	return out
}

// Lifecycle is one lifecycle event of a call (adapters.Event) on the wire
// (v2). The receiving side stamps the time, the adapter's name, and the
// call's request and session.
type Lifecycle struct {
	Type       adapters.EventType    `json:"type"`
	Model      string                `json:"model,omitempty"`
	Stream     bool                  `json:"stream,omitempty"`
	Attempt    int                   `json:"attempt,omitempty"`
	LatencyMS  int64                 `json:"latency_ms,omitempty"`
	Status     int                   `json:"status,omitempty"`
	Usage      *canonical.TokenUsage `json:"usage,omitempty"`
	StopReason canonical.StopReason  `json:"stop_reason,omitempty"`
	Error      *Error                `json:"error,omitempty"`
	WillRetry  bool                  `json:"will_retry,omitempty"`
	WaitMS     int64                 `json:"wait_ms,omitempty"`
	ToolUseID  string                `json:"tool_use_id,omitempty"`
	ToolName   string                `json:"tool_name,omitempty"`
	MessageID  string                `json:"message_id,omitempty"`
	BlockType  canonical.BlockType   `json:"block_type,omitempty"`
	Reason     string                `json:"reason,omitempty"`
}

// LifecycleFrom returns e's protocol form.
func LifecycleFrom(e adapters.Event) *Lifecycle {
	out := &Lifecycle{
		Type: e.Type, Model: e.Model, Stream: e.Stream, Attempt: e.Attempt, LatencyMS: e.Latency.Milliseconds(),
		Status: e.Status, StopReason: e.StopReason, WillRetry: e.WillRetry, WaitMS: e.Wait.Milliseconds(),
		ToolUseID: e.ToolUseID, ToolName: e.ToolName, MessageID: e.MessageID, BlockType: e.BlockType, Reason: e.Reason,
	}
	if e.Type == adapters.EventCallCompleted {
		u := e.Usage
		out.Usage = &u
	}
	if e.Err != nil {
		out.Error = ErrorFrom(e.Err)
	}
	return out
}

// Event returns l as the adapters.Event of provider's request; the
// caller sets Time, SessionID and maps ToolUseID.
func (l *Lifecycle) Event(provider, requestID string) adapters.Event {
	e := adapters.Event{
		Type: l.Type, Adapter: provider, Model: l.Model, RequestID: requestID, Stream: l.Stream, Attempt: l.Attempt,
		Latency: time.Duration(l.LatencyMS) * time.Millisecond, Status: l.Status, StopReason: l.StopReason,
		WillRetry: l.WillRetry, Wait: time.Duration(l.WaitMS) * time.Millisecond,
		ToolUseID: l.ToolUseID, ToolName: l.ToolName, MessageID: l.MessageID, BlockType: l.BlockType, Reason: l.Reason,
	}
	if l.Usage != nil {
		e.Usage = *l.Usage
	}
	if l.Error != nil {
		e.Err = l.Error.AdapterError(provider, requestID)
		e.ErrorClass = e.Err.Class
	}
	return e
}
