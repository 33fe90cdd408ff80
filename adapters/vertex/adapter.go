// Package vertex is the metis adapter for Google Cloud's Vertex AI. It
// serves two publishers' models, as two adapter types on the same
// projects, locations and credentials:
//
//   - "vertex" (New): Gemini, POST
//     {host}/{api_version}/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent,
//     and :streamGenerateContent?alt=sse for streams. The body, the
//     decoders, thought signatures and the error table are
//     adapters/gemini's, exported for this (gemini.EncodeBody, ...).
//     Vertex's response extras decode as on the Gemini API: modelVersion
//     is Response.ServedModel; createTime, responseId and trafficType
//     (inside usageMetadata) carry nothing canonical and are kept only in
//     the raw body.
//   - "vertex-anthropic" (NewAnthropic): Claude, POST
//     {host}/v1/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:rawPredict,
//     and :streamRawPredict for streams (server-sent events). The body is
//     the Messages API's without its model field (the URL names the
//     model) and with anthropic_version "vertex-2023-10-16"; a streamed
//     call also says "stream": true. The mapping, the stream decoder and
//     the error table are adapters/anthropic's (anthropic.Platform).
//
// The host is https://aiplatform.googleapis.com for the "global"
// location and https://{location}-aiplatform.googleapis.com for a
// region; Config.BaseURL replaces it (the path stays).
//
// # Credentials
//
// Vertex AI takes OAuth 2 access tokens, "Authorization: Bearer <token>".
// The first of these that is set is used:
//
//  1. Config.APIKey (models.yaml api_key or api_key_env): a static access
//     token, such as `gcloud auth print-access-token` prints;
//  2. the token source given to NewWithTokenSource, else Config.Tokens
//     (tests, a harness's tokens on its clock, or any golang.org/x/oauth2
//     source: workload identity, impersonation);
//  3. the environment variable GOOGLE_OAUTH_ACCESS_TOKEN (read through
//     Config.Getenv), a static access token;
//  4. Application Default Credentials (golang.org/x/oauth2/google, scope
//     cloud-platform): GOOGLE_APPLICATION_CREDENTIALS, the gcloud
//     application-default login, or the metadata server on Google Cloud.
//     They are looked up at the first call, not by New, so building the
//     adapter never touches the network; tokens are cached and refreshed
//     before they expire. The metadata server is asked only where the
//     machine says it is Google Cloud (GCE_METADATA_HOST, Cloud Run,
//     Cloud Functions, App Engine, a Google BIOS), never probed elsewhere.
//
// A token source's tokens (2) are kept until a minute before their
// expiry on Config.Clock, then replaced. A 401 answered to a token from a
// source drops that token and, when the source gives a different one,
// sends the request again with it, once, at once (a token revoked or
// expired early); a static token is never sent again after a 401.
//
// Credentials that cannot be found fail the call before the wire with
// class auth, code not_configured, naming the ways to set them.
//
// # Options
//
// Adapter options (models.yaml options; a model's win where allowed):
// "project" (adapter only; default $GOOGLE_CLOUD_PROJECT), "location"
// (default "global"; a model may name its own region, as Claude models
// are served in some regions only), "api_version" (Gemini only: v1, the
// default, or v1beta1), "stream_function_call_arguments" (Gemini only:
// on a streamed call with tools, ask for each call's arguments in pieces,
// functionCallingConfig.streamFunctionCallArguments, which Vertex AI
// serves for Gemini 3 models; the Gemini adapter's decoder assembles
// them). "vertex-anthropic" also takes the Anthropic
// adapter's "beta" (the anthropic-beta header) and "cache" (cache_control
// on the system prompt and the last tool).
//
// # Errors
//
// Vertex AI answers its own failures (credentials, quota, unknown
// models) with a google.rpc.Status body, classified by the Gemini table:
// 401 UNAUTHENTICATED and 403 PERMISSION_DENIED are auth, 429
// RESOURCE_EXHAUSTED rate_limit, 404 NOT_FOUND model_not_found. For
// Claude, errors the model's server raises arrive in the Messages API's
// shape ({"type":"error","error":{"type","message"}}, mid-stream as
// `event: error`) and are classified by the Anthropic table
// (overloaded_error is rate_limit/overloaded).
package vertex

import (
	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/gemini"
	"golang.org/x/oauth2"
)

// Default adapter names, used when Config.Name is empty.
const (
	DefaultName          = "vertex"
	DefaultAnthropicName = "vertex-anthropic"
)

// GlobalHost is the endpoint of the "global" location.
const GlobalHost = "https://aiplatform.googleapis.com"

// AnthropicVersion is the anthropic_version Vertex AI's Claude bodies
// carry.
const AnthropicVersion = "vertex-2023-10-16"

// Info is the Gemini adapter's settings: no key is required, since
// credentials may come from the environment (see Credentials).
var Info = driver.Info{
	Name:      DefaultName,
	Key:       driver.KeyOptional,
	Estimator: gemini.Estimator,
}

// AnthropicInfo is the Claude adapter's settings.
var AnthropicInfo = driver.Info{
	Name:            DefaultAnthropicName,
	Key:             driver.KeyOptional,
	Estimator:       anthropic.Estimator,
	ImagesProjected: true, // the Messages mapping drops them with the WARN
}

// geminiOptions are the Gemini adapter's and each model's options.
type geminiOptions struct {
	Project    string `option:"project,adapter"`
	Location   string `option:"location"`
	APIVersion string `option:"api_version" enum:"v1|v1beta1"`
	// StreamArguments asks for streamed function-call arguments.
	StreamArguments bool `option:"stream_function_call_arguments"`
}

// anthropicOptions are the Claude adapter's and each model's options.
type anthropicOptions struct {
	Project  string   `option:"project,adapter"`
	Location string   `option:"location"`
	Beta     []string `option:"beta"`
	Cache    bool     `option:"cache"`
}

// New returns the Vertex AI adapter for Gemini models (type "vertex").
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return NewWithTokenSource(cfg, nil)
}

// NewAnthropic returns the Vertex AI adapter for Claude models (type
// "vertex-anthropic").
func NewAnthropic(cfg adapters.Config) (*driver.Adapter, error) {
	return NewAnthropicWithTokenSource(cfg, nil)
}

// NewWithTokenSource is New with ts as the credentials when cfg has no
// APIKey (see the package doc's order); nil means cfg.Tokens, else the
// environment's.
func NewWithTokenSource(cfg adapters.Config, ts oauth2.TokenSource) (*driver.Adapter, error) {
	if ts == nil {
		ts = cfg.Tokens
	}
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, geminiOptions{Location: "global", APIVersion: "v1"})
		if err != nil {
			return nil, err
		}
		pl, err := newPlatform(cfg, opts.Adapter().Project, ts)
		if err != nil {
			return nil, err
		}
		return &geminiProvider{platform: pl, opts: opts}, nil
	})
}

// NewAnthropicWithTokenSource is NewAnthropic with ts as the credentials
// when cfg has no APIKey; nil means cfg.Tokens, else the environment's.
func NewAnthropicWithTokenSource(cfg adapters.Config, ts oauth2.TokenSource) (*driver.Adapter, error) {
	if ts == nil {
		ts = cfg.Tokens
	}
	return driver.New(cfg, AnthropicInfo, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, anthropicOptions{Location: "global"})
		if err != nil {
			return nil, err
		}
		pl, err := newPlatform(cfg, opts.Adapter().Project, ts)
		if err != nil {
			return nil, err
		}
		return &anthropicProvider{platform: pl, opts: opts}, nil
	})
}

// geminiProvider is Gemini's generateContent on Vertex AI.
type geminiProvider struct {
	*platform
	opts *driver.Options[geminiOptions]
}

// anthropicProvider is Claude's Messages API on Vertex AI.
type anthropicProvider struct {
	*platform
	opts *driver.Options[anthropicOptions]
}

// messages is the Messages API envelope on Vertex AI.
var messages = anthropic.Platform{Version: AnthropicVersion, StreamField: true}

var (
	_ driver.RequestAuthorizer = (*geminiProvider)(nil)
	_ driver.RequestAuthorizer = (*anthropicProvider)(nil)
	_ driver.Reauthorizer      = (*geminiProvider)(nil)
	_ driver.Reauthorizer      = (*anthropicProvider)(nil)
)
