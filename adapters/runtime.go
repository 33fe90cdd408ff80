package adapters

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/metis-llm/metis/canonical"
)

// RuntimeOptions configures NewRuntime. The zero value is the usual
// program: the embedded models.yaml, keys from the environment.
type RuntimeOptions struct {
	// ModelsFile is the path of a models.yaml to use instead of the
	// embedded one. Registry wins when both are set.
	ModelsFile string
	// Registry is the registry to use; nil means ModelsFile, else
	// DefaultRegistry. Adapters it does not declare are taken from
	// DefaultRegistry, so every built-in provider is always there.
	Registry *Registry
	// Getenv reads the keys (api_key_env), the base-URL overrides
	// (<ADAPTER>_BASE_URL) and the cloud credentials; nil means os.Getenv.
	Getenv func(string) string
	// Configure, when set, adjusts each adapter's Config before it is
	// built: to set an HTTPClient, a Logger, an Observer, a Clock.
	Configure func(*Config)
	// Logger receives the WARN for a model the registry does not declare;
	// nil means slog.Default().
	Logger *slog.Logger
}

// Runtime opens the adapters of a registry as models ask for them, one
// per adapter instance, and keeps them until Close. Its Adapter method is
// a session.Resolver. A model the registry declares is served as
// declared (its adapter, wire name, capabilities and options); any other
// "provider:model" id is served by the adapter named like its provider
// part, with the wire name after the colon and the provider's own
// capability declaration — conservative for a model its table does not
// know — and a WARN says so once per model.
//
// An adapter's base URL can be overridden from the environment by
// <ADAPTER>_BASE_URL (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, as the
// providers' own SDKs read them; the adapter name upper-cased, '-' as
// '_'). A Runtime is safe for concurrent use.
type Runtime struct {
	reg       *Registry
	defaults  *Registry
	factories map[string]Factory
	getenv    func(string) string
	configure func(*Config)
	log       *slog.Logger

	mu     sync.Mutex
	open   map[string]Adapter
	warned map[string]bool
	closed bool
}

// NewRuntime returns a Runtime building adapters with factories (package
// adapters/providers has every built-in one: providers.NewRuntime). It
// fails only when opts.ModelsFile cannot be read or parsed; a missing key
// is reported by Adapter, for the adapter that needs it.
func NewRuntime(factories map[string]Factory, opts RuntimeOptions) (*Runtime, error) {
	defaults, err := DefaultRegistry()
	if err != nil {
		return nil, err
	}
	reg := opts.Registry
	if reg == nil && opts.ModelsFile != "" {
		f, err := os.Open(opts.ModelsFile)
		if err != nil {
			return nil, &RegistryError{File: opts.ModelsFile, Msg: fmt.Sprintf("reading: %v", err)}
		}
		defer f.Close()
		if reg, err = LoadRegistry(f, opts.ModelsFile); err != nil {
			return nil, err
		}
	}
	if reg == nil {
		reg = defaults
	}
	rt := &Runtime{
		reg: reg, defaults: defaults, factories: factories,
		getenv: opts.Getenv, configure: opts.Configure, log: opts.Logger,
		open: map[string]Adapter{}, warned: map[string]bool{},
	}
	if rt.getenv == nil {
		rt.getenv = os.Getenv
	}
	if rt.log == nil {
		rt.log = slog.Default()
	}
	return rt, nil
}

// Registry returns the registry the Runtime serves declared models from.
func (rt *Runtime) Registry() *Registry { return rt.reg }

// Adapter returns the adapter that serves model, a canonical
// "provider:model" id, opening it the first time. Its errors are the
// registry's: model_not_found for an id without a provider part, whose
// provider names no adapter, or that is an alias (requests carry the
// canonical id: Registry.Resolve maps an alias to it), and
// Config.KeyError's not_configured when the adapter's key is missing.
func (rt *Runtime) Adapter(model string) (Adapter, error) {
	name, reg, err := rt.adapterFor(model)
	if err != nil {
		return nil, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return nil, errors.New("adapters: the runtime is closed")
	}
	if a, ok := rt.open[name]; ok {
		return a, nil
	}
	a, err := reg.Open(name, rt.factories, rt.getenv, func(c *Config) {
		if u := rt.getenv(BaseURLEnv(name)); u != "" {
			c.BaseURL = u
		}
		if rt.configure != nil {
			rt.configure(c)
		}
	})
	if err != nil {
		return nil, err
	}
	rt.open[name] = a
	return a, nil
}

// adapterFor names the adapter instance serving model and the registry
// that declares it.
func (rt *Runtime) adapterFor(model string) (string, *Registry, error) {
	if id, ok := rt.reg.aliases[model]; ok {
		// The model id travels in every request (wire name, capability
		// overrides, price): an alias there would be taken for a model.
		return "", nil, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound,
			"model %q is an alias of %s in the registry %s: use the canonical id (Registry.Resolve gives it)", model, id, rt.reg.file)
	}
	if m, err := rt.reg.Resolve(model); err == nil {
		return m.Adapter, rt.reg, nil
	}
	provider, name, ok := strings.Cut(model, ":")
	if !ok || provider == "" || name == "" {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound,
			"model %q is not in the registry %s and is not a \"provider:model\" id", model, rt.reg.file)
		return "", nil, ae
	}
	reg := rt.reg
	if _, ok := reg.adapters[provider]; !ok {
		reg = rt.defaults
	}
	if _, ok := reg.adapters[provider]; !ok {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound,
			"model %q: no adapter named %q in the registry %s (adapters: %s)", model, provider, rt.reg.file, strings.Join(rt.reg.Adapters(), ", "))
		ae.Provider = provider
		return "", nil, ae
	}
	rt.mu.Lock()
	warn := !rt.warned[model]
	rt.warned[model] = true
	rt.mu.Unlock()
	if warn {
		rt.log.Warn("adapters: model not declared in the registry; using its adapter's defaults and the provider's own capability declaration (conservative for a model it does not know); declare it in models.yaml to set its wire name, capabilities and options",
			"model", model, "adapter", provider, "registry", rt.reg.file)
	}
	return provider, reg, nil
}

// Close closes every adapter the Runtime opened; later calls to Adapter
// fail.
func (rt *Runtime) Close() error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.closed = true
	var errs []error
	for name, a := range rt.open {
		if err := a.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing adapter %q: %w", name, err))
		}
		delete(rt.open, name)
	}
	return errors.Join(errs...)
}

// BaseURLEnv is the environment variable a Runtime reads to override the
// base URL of the adapter named name: ANTHROPIC_BASE_URL for
// "anthropic", VERTEX_ANTHROPIC_BASE_URL for "vertex-anthropic".
func BaseURLEnv(name string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)) + "_BASE_URL"
}
