// Package adapters is what a caller of LLM provider adapters uses: the
// Adapter interface, its Config, the model registry (models.yaml) that
// opens adapters by name, the observers of a call's events, the
// tool-id map a session keeps, and the configuration errors.
//
// It plays the part of database/sql: the provider packages
// (adapters/anthropic, adapters/openai, adapters/gemini,
// adapters/openaicompat, and the cloud platforms' adapters/azure,
// adapters/bedrock and adapters/vertex) are drivers, built on the kit in
// adapters/driver, and adapters/providers lists them for
// Registry.Open. Code that writes an adapter reads adapters/driver; code
// that calls one needs only this package.
package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"net/http"
	"os"
	"time"

	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/canonical"
)

// Adapter translates canonical requests to one provider's wire format and
// the provider's answers back to canonical responses and events.
type Adapter interface {
	// Name is the provider key ("anthropic", "openai", "vllm", ...).
	Name() string
	// Capabilities declares honestly what model can do through this adapter.
	Capabilities(model string) canonical.Capabilities
	// Complete makes a non-streaming call.
	Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error)
	// Stream makes a streaming call. The sequence satisfies the invariants
	// of 000 §5.2 and ends with one message.complete event; on a failure
	// mid-stream that event has stop_reason error and is followed by the
	// error (000 §6.5); after a cancellation it has stop_reason cancelled
	// and nothing follows (000 §5.3). A failure before the first event is
	// yielded as the only element.
	Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error]
	// EstimateInputTokens estimates the request's input tokens without the
	// network, within ±10%.
	EstimateInputTokens(req *canonical.Request) int
	// Cancel aborts the in-flight call with this request id. It reports
	// whether a call was found; calling it again is harmless.
	Cancel(requestID string) bool
	// Close releases idle connections.
	Close() error
}

// Readier is implemented by adapters whose server can be probed cheaply
// (004 §5): Ready returns nil only when the model can serve now.
type Readier interface {
	Ready(ctx context.Context, model string) error
}

// Config configures one adapter instance (000 §3.2).
type Config struct {
	// Name is the provider key this instance serves under.
	Name string
	// Type selects the adapter implementation ("anthropic", "openai",
	// "gemini", "openaicompat").
	Type string
	// APIKey is the key itself; APIKeyEnv names the variable it came from
	// (kept for error messages).
	APIKey    string
	APIKeyEnv string
	// BaseURL overrides the provider's default endpoint.
	BaseURL string
	// Timeout bounds a whole call; zero means 600 s.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt; total
	// attempts are 1+MaxRetries. The zero value retries nothing; the
	// registry defaults it to 2.
	MaxRetries int
	// ExtraHeaders are sent on every request.
	ExtraHeaders map[string]string
	// Options are adapter-specific knobs; only the named adapter reads them.
	Options map[string]any
	// Models are the registry's models served by this instance, by
	// canonical id.
	Models map[string]ModelConfig

	// HTTPClient is used for every request when set; otherwise a client
	// with Transport (or http.DefaultTransport) is made.
	HTTPClient *http.Client
	Transport  http.RoundTripper
	// Logger receives WARN entries for lossy projections and estimates;
	// nil means slog.Default().
	Logger *slog.Logger
	// Clock is used for retry sleeps, and for the idle and whole-call
	// timeouts when it is a TimerClock; nil means the real clock.
	Clock Clock
	// OnAttempt, when set, is called after every HTTP attempt.
	OnAttempt func(Attempt)
	// Observer, when set, receives the adapter's lifecycle events (see
	// Event); Observers combines several. Nil costs nothing.
	Observer Observer
	// Tokens, when set, hands out the OAuth 2 access tokens of a
	// provider that authenticates with expiring bearer tokens (Vertex
	// AI, Azure OpenAI with Microsoft Entra ID), used when APIKey is
	// empty. The adapter asks it for a token as it sends a request and
	// again after a 401, so a refreshed token reaches it when the
	// caller's source refreshes (a harness's on the run's clock). An
	// adapter whose provider takes only a key ignores it.
	// A source that is also a ContextTokenSource is asked with the
	// call's context (the stdio protocol's asks metis for that call).
	Tokens oauth2.TokenSource
	// Getenv resolves the environment variables an adapter reads beyond
	// api_key_env: a cloud platform's ambient credentials
	// (AWS_ACCESS_KEY_ID, GOOGLE_OAUTH_ACCESS_TOKEN, ...) and defaults
	// (AWS_REGION, GOOGLE_CLOUD_PROJECT). Registry.Config sets it from its
	// getenv, so a harness that fakes the keys fakes these too; nil means
	// os.Getenv.
	Getenv func(string) string
}

// Env returns the value of the environment variable name through
// c.Getenv (os.Getenv when nil).
func (c *Config) Env(name string) string {
	if c.Getenv != nil {
		return c.Getenv(name)
	}
	return os.Getenv(name)
}

// ModelConfig is one model entry of the registry (000 §8.1).
type ModelConfig struct {
	ID          string   `yaml:"-" json:"id"`
	Adapter     string   `yaml:"adapter" json:"adapter"`
	WireName    string   `yaml:"wire_name" json:"wire_name"`
	Tier        string   `yaml:"tier" json:"tier,omitempty"`
	CanDelegate bool     `yaml:"can_delegate" json:"can_delegate,omitempty"`
	Aliases     []string `yaml:"aliases" json:"aliases,omitempty"`
	// Capabilities overrides the adapter's declaration field by field: it
	// is a JSON object whose present fields replace the adapter's values.
	Capabilities json.RawMessage `yaml:"-" json:"capabilities,omitempty"`
	// Options are per-model adapter knobs (for example "dialect: chat").
	Options map[string]any `yaml:"options" json:"options,omitempty"`
	// Compensations are the model's behaviour corrections (003 §7),
	// applied by adapters/compensate; nil means none.
	Compensations *Compensations `yaml:"-" json:"compensations,omitempty"`
}

// Model returns the registry entry for a canonical model id, or one
// derived from the id ("provider:name" → wire name "name") when the
// registry has none.
func (c *Config) Model(id string) ModelConfig {
	if m, ok := c.Models[id]; ok {
		if m.WireName == "" {
			m.WireName = wireNameOf(id)
		}
		m.ID = id
		return m
	}
	return ModelConfig{ID: id, Adapter: c.Name, WireName: wireNameOf(id)}
}

func wireNameOf(id string) string {
	for i := 0; i < len(id); i++ {
		if id[i] == ':' {
			return id[i+1:]
		}
	}
	return id
}

// Attempt describes one HTTP attempt of a call, for observers such as the
// harness counting retries.
type Attempt struct {
	RequestID string
	// N is the attempt number, starting at 1.
	N int
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Err is the classified failure, nil on success.
	Err *canonical.AdapterError
	// Wait is the backoff before the next attempt, 0 when none follows.
	Wait time.Duration
}

// EstimateOutputTokens estimates the output tokens of content no provider
// counted: a token per four bytes (rounded up) of its text, reasoning,
// tool names and tool inputs. Adapters use it for a stream that ended
// before its usage, the session for one its caller stopped reading.
func EstimateOutputTokens(content canonical.Blocks) int {
	n := 0
	for _, b := range content {
		switch b := b.(type) {
		case canonical.TextBlock:
			n += len(b.Text)
		case canonical.ThinkingBlock:
			n += len(b.Text)
		case canonical.ToolUseBlock:
			n += len(b.Name) + len(b.Input)
		}
	}
	return (n + 3) / 4
}

// Clock abstracts time for retry backoff so tests never wait. A Clock
// that also has a method Jitter() float64 supplies the backoff jitter (a
// number in [0,1); tests return 0 to make waits exact); otherwise it is
// random. A Clock that is also a TimerClock runs the call's timeouts.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done, returning ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

// Timer is a timer started by AfterFunc; *time.Timer is one. Stop and
// Reset report whether the timer was pending, as time.Timer's do.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// TimerClock is a Clock that also runs the adapters' timers (the idle
// timeout, the whole-call timeout): its AfterFunc calls f once d has
// passed on the clock. A virtual clock makes time pass when nothing else
// can happen (a harness's stalled server), so that a timeout fires at
// once and deterministically instead of after real seconds.
type TimerClock interface {
	Clock
	AfterFunc(d time.Duration, f func()) Timer
}

// AfterFunc calls f once d has passed on c: through c's AfterFunc when c
// is a TimerClock, else (a nil c too) time.AfterFunc, so the real clock's
// timers cost what time's do.
func AfterFunc(c Clock, d time.Duration, f func()) Timer {
	if tc, ok := c.(TimerClock); ok {
		return tc.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits for d or ctx.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// KeyError returns nil when c has an API key, else the error of an
// adapter that cannot work without one (000 §8.2): class auth, Code
// not_configured, naming the environment variable when c has one and
// every other place a key can come from (models.yaml's api_key_env and
// api_key, Config.APIKey); it never holds a key. Registry.Config and
// every built-in adapter that needs a key return it.
func (c *Config) KeyError() error {
	if c.APIKey != "" {
		return nil
	}
	var ae *canonical.AdapterError
	if c.APIKeyEnv != "" {
		ae = canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured,
			"adapter %q is not configured: environment variable %s is not set (set it; or point the adapter's api_key_env in models.yaml at another variable, or set api_key there; or set Config.APIKey)",
			c.Name, c.APIKeyEnv)
	} else {
		ae = canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured,
			"adapter %q is not configured: it has no API key (set the adapter's api_key_env in models.yaml to the environment variable holding it, or its api_key there, or Config.APIKey)", c.Name)
	}
	ae.Provider = c.Name
	return ae
}

// A ContextTokenSource is a Config.Tokens that wants to know which call a
// token is for: an adapter asks it with the call's context (the request's
// context), as protocol.Serve's token source, which asks metis for the
// call, needs.
type ContextTokenSource interface {
	oauth2.TokenSource
	TokenContext(ctx context.Context) (*oauth2.Token, error)
}

// TokenFor asks ts for a token, with ctx when ts is a ContextTokenSource.
func TokenFor(ctx context.Context, ts oauth2.TokenSource) (*oauth2.Token, error) {
	if c, ok := ts.(ContextTokenSource); ok {
		return c.TokenContext(ctx)
	}
	return ts.Token()
}

// ErrTokensUnsupported is wrapped by the error of a Factory that cannot
// hand its adapter the Config.Tokens it was given (an adapter over the
// stdio protocol whose ready declared no minor version 1): a run that
// scripts tokens cannot hold such an adapter to them.
var ErrTokensUnsupported = errors.New("the adapter cannot take a token source (Config.Tokens)")
