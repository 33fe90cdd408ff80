// Package azure is the metis adapter for Azure OpenAI (Azure AI Foundry's
// OpenAI models). It speaks OpenAI's two dialects, chosen per model by the
// "dialect" option as on the openai adapter — "responses" (the default)
// or "chat" — with adapters/openai's request mappings, decoders and
// error table (openai.ResponsesDialect, openai.ChatDialect), and adds
// what Azure changes: the paths, the credentials and the content filter.
//
// # Paths
//
// The base URL is the resource's endpoint,
// https://{resource}.openai.azure.com (or
// https://{resource}.cognitiveservices.azure.com). Models are
// deployments: a model's wire name is its deployment name. The
// "api_version" option picks the path:
//
//   - "v1" (the default): the v1 API, {base}/openai/v1/chat/completions
//     and {base}/openai/v1/responses, the deployment in the body's
//     "model";
//   - a dated version (2024-10-21, 2025-04-01-preview, ...): Chat
//     Completions on the deployment's path,
//     {base}/openai/deployments/{deployment}/chat/completions?api-version=…,
//     and Responses on {base}/openai/responses?api-version=… with the
//     deployment in the body.
//
// # Credentials
//
// Config.APIKey is sent as the "api-key" header (the resource's key;
// api_key_env, typically AZURE_OPENAI_API_KEY). With the "auth" option
// "entra", Config.APIKey is instead a Microsoft Entra ID access token
// (scope https://cognitiveservices.azure.com/.default) sent as
// "Authorization: Bearer"; Config.Tokens (or NewWithTokenSource's
// argument) is a token source for Entra tokens that refresh (wrap
// azidentity's credential in an oauth2.TokenSource), used when
// Config.APIKey is empty. Its tokens are
// kept until a minute before their expiry on Config.Clock; a 401 answered
// to one drops it and, when the source gives a different token, sends
// the request again with it, once, at once.
//
// # What Azure adds to the wire
//
//   - Chat streams begin with a chunk that has no choices, an empty id
//     and model, and prompt_filter_results; choices carry
//     content_filter_results. Neither is canonical: the decoders skip
//     them, and the served model is the first non-empty model.
//   - A completion the content filter stopped finishes with
//     finish_reason "content_filter" (Chat) or an incomplete response
//     whose reason is content_filter (Responses): stop reason
//     content_filter, the text so far kept, a normal response.
//   - A prompt the filter rejects is a 400 whose error code is
//     "content_filter" (innererror ResponsibleAIPolicyViolation): class
//     invalid_request, Code content_filter, not retried.
//   - Responses answers carry content_filters arrays, kept only in the
//     raw body.
//
// Options ("api_version", "auth" and "model" as above and below;
// "dialect", "developer_role", "parallel_tool_calls" and "reasoning" as
// on the openai adapter): "model" names the OpenAI model a deployment
// serves (gpt-5-mini, o4-mini, ...), for the capability table and the
// reasoning and developer-role traits; it defaults to the wire name, for
// deployments named after their model.
package azure

import (
	"time"

	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/internal/tokencache"
	"github.com/metis-llm/metis/adapters/openai"
)

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "azure"

// DefaultAPIVersion is the "api_version" option's default: the v1 API.
const DefaultAPIVersion = "v1"

// Info is what the driver needs to know about this provider. The key is
// checked by New itself, since a token source may stand in for it.
var Info = driver.Info{
	Name:      DefaultName,
	Key:       driver.KeyOptional,
	Estimator: openai.Estimator,
}

// Dialect names, the values of the "dialect" option.
const (
	dialectResponses = "responses"
	dialectChat      = "chat"
)

// options are the adapter's and each model's options.
type options struct {
	Dialect           string `option:"dialect" enum:"responses|chat"`
	APIVersion        string `option:"api_version"`
	Auth              string `option:"auth,adapter" enum:"api-key|entra"`
	Model             string `option:"model"`
	DeveloperRole     *bool  `option:"developer_role"`
	ParallelToolCalls *bool  `option:"parallel_tool_calls"`
	Reasoning         *bool  `option:"reasoning"`
}

// provider is Azure OpenAI's wire format, in two dialects.
type provider struct {
	base   string // the resource endpoint, no trailing slash
	opts   *driver.Options[options]
	entra  bool
	tokens *tokencache.Cache // Entra tokens, when Config.APIKey is empty
}

// EnvEndpoint is the environment variable naming the resource endpoint
// when the configuration has no base_url (read through Config.Getenv).
const EnvEndpoint = "AZURE_OPENAI_ENDPOINT"

// New returns the Azure OpenAI adapter for cfg. cfg.BaseURL (the
// resource endpoint; else $AZURE_OPENAI_ENDPOINT) and cfg.APIKey are
// required.
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return NewWithTokenSource(cfg, nil)
}

// NewWithTokenSource is New with ts supplying Entra ID access tokens
// when cfg has no APIKey; it implies the "entra" auth. Nil means
// cfg.Tokens (none: the key).
func NewWithTokenSource(cfg adapters.Config, ts oauth2.TokenSource) (*driver.Adapter, error) {
	if ts == nil {
		ts = cfg.Tokens
	}
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, options{Dialect: dialectResponses, APIVersion: DefaultAPIVersion, Auth: "api-key"})
		if err != nil {
			return nil, err
		}
		base := cfg.BaseURL
		if base == "" {
			base = cfg.Env(EnvEndpoint)
		}
		if base == "" {
			return nil, driver.OptionError(cfg, errNoEndpoint)
		}
		p := &provider{base: trimSlash(base), opts: opts, entra: opts.Adapter().Auth == "entra" || ts != nil}
		if cfg.APIKey == "" {
			if ts == nil {
				return nil, cfg.KeyError()
			}
			now := time.Now
			if cfg.Clock != nil {
				now = cfg.Clock.Now
			}
			p.tokens = tokencache.New(ts, now)
		}
		return p, nil
	})
}

var (
	_ driver.Provider          = (*provider)(nil)
	_ driver.RequestAuthorizer = (*provider)(nil)
	_ driver.Reauthorizer      = (*provider)(nil)
)
