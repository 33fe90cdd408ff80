package vertex

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/internal/tokencache"
	"github.com/metis-llm/metis/canonical"
)

// Scope is the OAuth scope Application Default Credentials are asked for.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// TokenEnv is the environment variable holding a static access token.
const TokenEnv = "GOOGLE_OAUTH_ACCESS_TOKEN"

// ProjectEnv is the environment variable naming the default project.
const ProjectEnv = "GOOGLE_CLOUD_PROJECT"

// platform is what both publishers' providers share: the adapter's name,
// endpoint, project and credentials.
type platform struct {
	name    string
	base    string // Config.BaseURL without a trailing slash; "" for the location's host
	project string
	tokens  oauth2.TokenSource // nil when Config.APIKey is the token
	cache   *tokencache.Cache  // the token source's, when it is the caller's
}

// newPlatform resolves the project and the credentials of cfg (see the
// package doc for their order).
func newPlatform(cfg *adapters.Config, project string, ts oauth2.TokenSource) (*platform, error) {
	if project == "" {
		project = cfg.Env(ProjectEnv)
	}
	if project == "" {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeNotConfigured, "adapter %q is not configured: it has no project (set options.project, or %s)", cfg.Name, ProjectEnv)
		ae.Provider = cfg.Name
		return nil, ae
	}
	p := &platform{name: cfg.Name, base: strings.TrimRight(cfg.BaseURL, "/"), project: project}
	switch tok := cfg.Env(TokenEnv); {
	case cfg.APIKey != "":
		// Authorize sends it, as every adapter sends its key.
	case ts != nil:
		// Cached until it is about to expire on Config.Clock, the clock
		// the whole call runs on.
		p.cache = tokencache.New(ts, clockNow(cfg.Clock))
		p.tokens = p.cache
	case tok != "":
		p.tokens = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok})
	default:
		p.tokens = &adcSource{}
	}
	return p, nil
}

// Authorize sends Config.APIKey, a static access token, as a bearer
// token.
func (p *platform) Authorize(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// AuthorizeRequest sets "Authorization: Bearer <token>" from the token
// source, refreshing an expired token first, unless the request has its
// Authorization already (Config.APIKey, or Config.ExtraHeaders, which
// win as on every adapter).
func (p *platform) AuthorizeRequest(r *http.Request, _ []byte) error {
	if p.tokens == nil || r.Header.Get("Authorization") != "" {
		return nil
	}
	tok, err := adapters.TokenFor(r.Context(), p.tokens)
	if err != nil {
		var missing *noCredentialsError
		if errors.As(err, &missing) {
			ae := canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured, "adapter %q is not configured: no Google Cloud credentials (set api_key_env to a variable holding an access token, or %s, or Application Default Credentials: gcloud auth application-default login)", p.name, TokenEnv)
			ae.Err = missing.err // Error() appends it, once
			return ae
		}
		ae := canonical.NewError(canonical.ErrAuth, "", "getting a Google Cloud access token: %v", err)
		ae.Err = err
		return ae
	}
	if tok.AccessToken == "" {
		return canonical.NewError(canonical.ErrAuth, "", "the Google Cloud token source returned an empty access token")
	}
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

// Reauthorize drops the token a 401 refused and reports whether the
// token source has a different one (driver.Reauthorizer): a token
// revoked or expired early is replaced once, not sent again. A static
// token (Config.APIKey, GOOGLE_OAUTH_ACCESS_TOKEN) cannot change.
func (p *platform) Reauthorize(refused *http.Request) bool {
	if p.cache == nil {
		return false
	}
	old, ok := strings.CutPrefix(refused.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	_, fresh := p.cache.RefreshContext(refused.Context(), old)
	return fresh
}

// clockNow is clock's Now, or time.Now for a nil clock.
func clockNow(clock adapters.Clock) func() time.Time {
	if clock == nil {
		return time.Now
	}
	return clock.Now
}

// adcSource is Application Default Credentials, looked up at the first
// token and cached (with the token) from then on.
type adcSource struct {
	mu sync.Mutex
	ts oauth2.TokenSource
}

func (a *adcSource) Token() (*oauth2.Token, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ts == nil {
		if !adcMayExist() {
			return nil, &noCredentialsError{err: errors.New("no credentials file, and this machine does not look like Google Cloud (no metadata server is asked)")}
		}
		creds, err := google.FindDefaultCredentials(context.Background(), Scope)
		if err != nil {
			return nil, &noCredentialsError{err: err}
		}
		a.ts = oauth2.ReuseTokenSource(nil, creds.TokenSource)
	}
	return a.ts.Token()
}

// noCredentialsError is Application Default Credentials not found.
type noCredentialsError struct{ err error }

func (e *noCredentialsError) Error() string { return e.err.Error() }
func (e *noCredentialsError) Unwrap() error { return e.err }

// adcMayExist reports whether Application Default Credentials can be
// found without asking a metadata server that is not there: a credentials
// file is named or in gcloud's place, or the machine says it runs on
// Google Cloud (GCE_METADATA_HOST, Cloud Run, Cloud Functions, App
// Engine, or a Google BIOS). Off Google Cloud the lookup would otherwise
// probe 169.254.169.254 and wait for it on every machine without
// credentials, test machines included.
func adcMayExist() bool {
	for _, env := range []string{"GOOGLE_APPLICATION_CREDENTIALS", "GCE_METADATA_HOST", "K_SERVICE", "FUNCTION_TARGET", "GAE_ENV"} {
		if os.Getenv(env) != "" {
			return true
		}
	}
	if dir, err := os.UserConfigDir(); err == nil {
		name := filepath.Join(dir, "gcloud", "application_default_credentials.json")
		if runtime.GOOS != "windows" {
			if home, err := os.UserHomeDir(); err == nil {
				name = filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
			}
		}
		if _, err := os.Stat(name); err == nil {
			return true
		}
	}
	product, err := os.ReadFile("/sys/class/dmi/id/product_name")
	return err == nil && strings.Contains(string(product), "Google")
}
