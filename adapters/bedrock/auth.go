package bedrock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// The environment variables the adapter reads (through Config.Getenv).
const (
	EnvAccessKeyID     = "AWS_ACCESS_KEY_ID"
	EnvSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
	EnvSessionToken    = "AWS_SESSION_TOKEN"
	EnvBearerToken     = "AWS_BEARER_TOKEN_BEDROCK"
	EnvRegion          = "AWS_REGION"
	EnvDefaultRegion   = "AWS_DEFAULT_REGION"
)

// SigningName is the service of Bedrock's SigV4 credential scope.
const SigningName = "bedrock"

// Endpoint returns the Bedrock runtime endpoint of region.
func Endpoint(region string) string { return "https://bedrock-runtime." + region + ".amazonaws.com" }

// signer is the SDK's SigV4 signer; it holds no per-request state.
var signer = v4.NewSigner()

// Access is a Bedrock runtime endpoint and what authorizes requests to
// it: the part of a provider that every Bedrock API (InvokeModel here,
// Converse in adapters/bedrockconverse) shares. Its methods are the
// driver's Authorize and AuthorizeRequest.
type Access struct {
	// Base is the endpoint, no trailing slash.
	Base string
	// Region scopes the signature.
	Region string
	creds  aws.CredentialsProvider // nil when a bearer key authenticates
	bearer string                  // a Bedrock API key from the environment
}

// NewAccess resolves the endpoint and credentials of cfg: region (an
// option; "" means $AWS_REGION, then $AWS_DEFAULT_REGION), Config.BaseURL
// or the region's endpoint, then the first credentials set of
// Config.APIKey, creds, the AWS_* variables and AWS_BEARER_TOKEN_BEDROCK.
// Without a region or credentials it fails with not_configured naming
// the variables.
func NewAccess(cfg *adapters.Config, region string, creds aws.CredentialsProvider) (*Access, error) {
	for _, env := range []string{EnvRegion, EnvDefaultRegion} {
		if region == "" {
			region = cfg.Env(env)
		}
	}
	if region == "" {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeNotConfigured, "adapter %q is not configured: it has no region (set options.region, or %s)", cfg.Name, EnvRegion)
		ae.Provider = cfg.Name
		return nil, ae
	}
	p := &Access{Region: region, Base: strings.TrimRight(cfg.BaseURL, "/")}
	if p.Base == "" {
		p.Base = Endpoint(region)
	}
	id, secret := cfg.Env(EnvAccessKeyID), cfg.Env(EnvSecretAccessKey)
	switch {
	case cfg.APIKey != "":
		// A Bedrock API key: Authorize sends it.
	case creds != nil:
		// Refreshed a minute before they expire, so that no request is
		// signed with credentials about to lapse.
		p.creds = aws.NewCredentialsCache(creds, func(o *aws.CredentialsCacheOptions) { o.ExpiryWindow = time.Minute })
	case id != "" && secret != "":
		static := aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: cfg.Env(EnvSessionToken), Source: "environment"}
		p.creds = aws.CredentialsProviderFunc(func(ctx context.Context) (aws.Credentials, error) { return static, nil })
	case cfg.Env(EnvBearerToken) != "":
		p.bearer = cfg.Env(EnvBearerToken)
	default:
		ae := canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured, "adapter %q is not configured: no AWS credentials (set %s and %s, or a Bedrock API key in %s or api_key_env)", cfg.Name, EnvAccessKeyID, EnvSecretAccessKey, EnvBearerToken)
		ae.Provider = cfg.Name
		return nil, ae
	}
	return p, nil
}

// newProvider resolves the region, endpoint and credentials of cfg (see
// the package doc for their order).
func newProvider(cfg *adapters.Config, opts *driver.Options[options], creds aws.CredentialsProvider) (*provider, error) {
	acc, err := NewAccess(cfg, opts.Adapter().Region, creds)
	if err != nil {
		return nil, err
	}
	return &provider{name: cfg.Name, opts: opts, Access: acc}, nil
}

// Authorize sends Config.APIKey, a Bedrock API key, as a bearer token.
func (p *Access) Authorize(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// AuthorizeRequest authenticates an attempt that has no Authorization
// yet (Config.APIKey and Config.ExtraHeaders win): with the Bedrock API
// key from the environment, or a SigV4 signature over the final headers
// and the body's SHA-256, made with credentials refreshed as they
// expire.
func (p *Access) AuthorizeRequest(r *http.Request, body []byte) error {
	if r.Header.Get("Authorization") != "" {
		return nil
	}
	if p.creds == nil {
		r.Header.Set("Authorization", "Bearer "+p.bearer)
		return nil
	}
	creds, err := p.creds.Retrieve(r.Context())
	if err != nil {
		ae := canonical.NewError(canonical.ErrAuth, "", "getting AWS credentials: %v", err)
		ae.Err = err
		return ae
	}
	sum := sha256.Sum256(body)
	// The wall clock, never Config.Clock: AWS refuses a signature more
	// than five minutes off, and a harness's clock is virtual.
	if err := signer.SignHTTP(r.Context(), creds, r, hex.EncodeToString(sum[:]), SigningName, p.Region, time.Now()); err != nil {
		ae := canonical.NewError(canonical.ErrAuth, "", "signing the request (SigV4): %v", err)
		ae.Err = err
		return ae
	}
	return nil
}
