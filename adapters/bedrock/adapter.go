// Package bedrock is the metis adapter for Anthropic's Claude models on
// Amazon Bedrock, through the runtime's InvokeModel API:
//
//	POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/invoke
//	POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/invoke-with-response-stream
//
// The model id is the path segment, escaped (anthropic.claude-…-v1:0
// becomes anthropic.claude-…-v1%3A0; an inference profile's us./eu./apac./
// global. prefix and ARNs work the same). The body is the Messages API's
// without model and stream (the path says both) and with
// anthropic_version "bedrock-2023-05-31"; betas travel in the body as
// anthropic_beta. The request mapping, the decoders and the Messages
// error table are adapters/anthropic's (anthropic.Platform), shared
// rather than copied. What every Bedrock runtime API shares — the
// endpoint and credentials (Access), the model path (ModelPath), the
// event-stream frame loop (DecodeEvents) and the exception table
// (Classify, ExceptionError) — is exported for adapters/bedrockconverse,
// the Converse API.
//
// # Streams
//
// InvokeModelWithResponseStream answers application/vnd.amazon.eventstream:
// binary frames (a prelude with lengths and a CRC, typed headers, a
// payload, a message CRC) decoded with the AWS SDK for Go v2's
// eventstream package. An event frame (":message-type" event,
// ":event-type" chunk) carries {"bytes": base64, "p": padding}; the bytes
// are one Messages API stream event's JSON, fed to the Anthropic stream
// decoder. Bedrock adds "amazon-bedrock-invocationMetrics" to
// message_stop (not canonical). An exception frame (":message-type"
// exception, ":exception-type" modelStreamErrorException,
// throttlingException, ...) ends the stream with its classified error.
// A frame whose CRC does not match, or whose lengths are impossible, is
// invalid_response.
//
// # Credentials
//
// The first that is set:
//
//  1. Config.APIKey (api_key, api_key_env): a Bedrock API key, sent as
//     "Authorization: Bearer";
//  2. the aws.CredentialsProvider given to NewWithCredentials (for
//     example config.LoadDefaultConfig's Credentials: profiles, SSO,
//     roles, instance metadata), cached and refreshed by
//     aws.CredentialsCache;
//  3. AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN
//     (read through Config.Getenv);
//  4. AWS_BEARER_TOKEN_BEDROCK, a Bedrock API key.
//
// AWS credentials sign every attempt with Signature Version 4 (the SDK's
// v4 signer, service "bedrock", the region's scope) over the final
// headers and a SHA-256 of the body. Without any, New fails with
// auth/not_configured naming the variables.
//
// # Options
//
// "region" (adapter only; default $AWS_REGION, then $AWS_DEFAULT_REGION)
// picks the endpoint; Config.BaseURL replaces the endpoint (the region
// still scopes the signature). "beta" (anthropic_beta) and "cache"
// (cache_control on the system prompt and the last tool) are the
// Anthropic adapter's.
//
// # Errors
//
// Bedrock answers failures with an x-amzn-ErrorType header naming the
// exception and a {"message": ...} body; errors.go has the table
// (ThrottlingException is rate_limit, ValidationException
// invalid_request or context_overflow, AccessDeniedException auth,
// ModelStreamErrorException the class of the model's own status, ...).
package bedrock

import (
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
)

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "bedrock"

// AnthropicVersion is the anthropic_version Bedrock's Claude bodies carry.
const AnthropicVersion = "bedrock-2023-05-31"

// Info is what the driver needs to know about this provider. Credentials
// are checked by New itself, since they may come from the environment.
var Info = driver.Info{
	Name:            DefaultName,
	Key:             driver.KeyOptional,
	Estimator:       anthropic.Estimator,
	ImagesProjected: true, // the Messages mapping drops them with the WARN
}

// options are the adapter's and each model's options.
type options struct {
	Region string   `option:"region,adapter"`
	Beta   []string `option:"beta"`
	Cache  bool     `option:"cache"`
}

// messages is the Messages API envelope on Bedrock.
var messages = anthropic.Platform{Version: AnthropicVersion, BetaInBody: true}

// provider is Claude's InvokeModel on Bedrock.
type provider struct {
	*Access
	name string
	opts *driver.Options[options]
}

// New returns the Bedrock adapter for cfg, with credentials from
// Config.APIKey or the environment (see the package doc).
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return NewWithCredentials(cfg, nil)
}

// NewWithCredentials is New with creds signing requests when cfg has no
// APIKey; nil means the environment's.
func NewWithCredentials(cfg adapters.Config, creds aws.CredentialsProvider) (*driver.Adapter, error) {
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, options{})
		if err != nil {
			return nil, err
		}
		return newProvider(cfg, opts, creds)
	})
}

var (
	_ driver.Provider          = (*provider)(nil)
	_ driver.RequestAuthorizer = (*provider)(nil)
)
