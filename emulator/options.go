package emulator

import (
	"slices"
	"time"
)

// DefaultChunkSize is the size in bytes of the text and argument deltas
// when WithChunkSize is not given.
const DefaultChunkSize = 12

// DefaultCreated is the creation time reported when WithCreated is not
// given: 2026-01-01T00:00:00Z.
var DefaultCreated = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Option configures a Server. Options are built only by this package's
// With… functions.
type Option func(*config)

// config is the settings the options write.
type config struct {
	addr           string
	chunkSize      int
	created        time.Time
	models         []string
	loaded         []string
	responder      Responder
	apiKey         string
	noAuth         bool
	chatReasoning  string
	profile        *Profile
	initialReplies []Reply
}

func defaultConfig() config {
	return config{addr: "127.0.0.1:0", chunkSize: DefaultChunkSize, created: DefaultCreated}
}

// WithAddr sets the address Start listens on (default "127.0.0.1:0", a
// free loopback port).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithChunkSize sets the size in bytes of streamed text, reasoning and
// tool-argument deltas (default DefaultChunkSize). Values below 1 mean 1.
func WithChunkSize(n int) Option { return func(c *config) { c.chunkSize = max(1, n) } }

// WithCreated sets the creation time reported in bodies (default
// DefaultCreated).
func WithCreated(t time.Time) Option { return func(c *config) { c.created = t } }

// WithModels sets the models the emulator knows. They are listed by the
// model-list endpoints, and a model request naming any other model gets the
// provider's model-not-found error. By default the list is empty and every
// model is accepted.
func WithModels(models ...string) Option {
	return func(c *config) { c.models = slices.Clone(models) }
}

// WithLoadedModels sets the models Ollama's GET /api/ps reports as loaded
// (default: none), so that readiness probes can tell "installed" from
// "loaded". GET /api/tags lists WithModels plus these.
func WithLoadedModels(models ...string) Option {
	return func(c *config) { c.loaded = slices.Clone(models) }
}

// WithResponder makes f decide every model request's reply; the queue is
// then not consulted.
func WithResponder(f Responder) Option { return func(c *config) { c.responder = f } }

// WithReplies queues replies, as Enqueue does.
func WithReplies(replies ...Reply) Option {
	return func(c *config) { c.initialReplies = append(c.initialReplies, replies...) }
}

// WithAPIKey makes the emulator accept only key; any other key gets the
// provider's invalid-key error. By default any non-empty key is accepted.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithoutAuth accepts requests with no key, as local OpenAI-compatible
// servers do.
func WithoutAuth() Option { return func(c *config) { c.noAuth = true } }

// WithChatReasoningField makes Chat Completions carry Reply.Thinking in a
// message and delta field of this name ("reasoning_content" for vLLM and
// DeepSeek, "reasoning" for Ollama and OpenRouter). By default it is not
// sent, as OpenAI's Chat Completions does not show reasoning.
func WithChatReasoningField(name string) Option {
	return func(c *config) { c.chatReasoning = name }
}

// WithProfile renders every reply whose API p shapes with p, unless the
// reply names its own (Reply.Profile). By default each API gets its
// reference profile (ReferenceProfile).
func WithProfile(p Profile) Option {
	return func(c *config) { c.profile = &p }
}
