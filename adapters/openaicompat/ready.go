package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// maxProbeBody bounds a probe's response body (OpenRouter's catalogue is
// the largest, a few MiB).
const maxProbeBody = 64 << 20

// Ready reports whether model (a canonical id such as "vllm:qwen2.5-7b")
// can serve now, so that the next call is expected to succeed (004 §5).
// It never runs a completion: it sends one to three cheap GETs, once each
// (no retries), bounded by ctx and the configured timeout, and it is
// never called by Complete or Stream. The probes, by kind:
//
//	vllm        GET /v1/models (listed = loaded: vLLM serves only what it
//	            loaded), GET /health, GET /is_sleeping (sleep mode, when
//	            the server exposes it; otherwise skipped)
//	ollama      GET /api/ps (loaded models); when the model is not there,
//	            GET /v1/models tells not loaded from unknown. Ollama loads
//	            a model on the first request that names it, so
//	            model_not_loaded means that call will wait for the load.
//	lmstudio    GET /api/v1/models (LM Studio 0.4: loaded_instances), else
//	            GET /api/v0/models (state), else GET /v1/models
//	llamacpp    GET /v1/models (in router mode each entry has a status;
//	            while a model loads the server answers 503 "Loading
//	            model"), GET /health (503 while loading)
//	openrouter  GET /v1/key (the key is valid), GET /v1/models
//	deepseek,   GET /v1/models
//	generic
//
// Paths are under the base URL's root (a trailing api_prefix is dropped
// first); the /v1 of OpenAI's paths is the api_prefix option when it is
// set.
// A catalogue entry that states whether the model is loaded (state,
// status, loaded_instances) is honoured by every kind; one that does not
// counts as loaded. The outcomes (004 fixture 007):
//
//	listed and loaded                    nil
//	listed, not loaded (or loading)      server_error, Code model_not_loaded, Retryable
//	not listed, or 404 naming the model  invalid_request, Code model_not_found
//	401, 403                             auth
//	no connection (refused, DNS, TLS)    network
//	other 5xx                            server_error
//	a 2xx body that is not JSON          server_error, Code invalid_response
//
// Errors are *canonical.AdapterError whose message names the probe
// ("ready: GET /v1/models: ...").
func (a *Adapter) Ready(ctx context.Context, model string) error {
	if model == "" {
		ae := canonical.NewError(canonical.ErrInvalidRequest, "", "ready: no model given")
		ae.Provider = a.Name()
		return ae
	}
	ctx, cancel := context.WithTimeout(ctx, driver.Timeout(a.p.cfg))
	defer cancel()
	wire := a.Model(model).WireName
	models := a.p.prefix + "/models"
	switch a.p.kind {
	case KindVLLM:
		if err := a.readyListed(ctx, wire, models); err != nil {
			return err
		}
		if err := a.getOK(ctx, "/health"); err != nil {
			return err
		}
		return a.vllmAwake(ctx, wire)
	case KindOllama:
		return a.readyOllama(ctx, wire)
	case KindLMStudio:
		return a.readyLMStudio(ctx, wire)
	case KindLlamaCpp:
		if err := a.readyListed(ctx, wire, models); err != nil {
			return err
		}
		return a.getOK(ctx, "/health")
	case KindOpenRouter:
		if err := a.getOK(ctx, a.p.prefix+"/key"); err != nil {
			return err
		}
	}
	return a.readyListed(ctx, wire, models)
}

// readyListed checks that the catalogue at path lists wire and does not
// say it is unloaded.
func (a *Adapter) readyListed(ctx context.Context, wire, path string) error {
	cat, err := a.fetchCatalog(ctx, path)
	if err != nil {
		return err
	}
	return a.checkListed(wire, path, cat)
}

// checkListed checks a fetched catalogue as readyListed does.
func (a *Adapter) checkListed(wire, path string, cat *catalog) error {
	e := cat.find(wire, a.p.kind == KindOllama)
	if e == nil {
		return a.notFound(wire, path, cat)
	}
	if loaded, known := e.loadState(); known && !loaded {
		return a.notLoaded(wire, "GET %s says it is %s", path, e.stateText())
	}
	return nil
}

func (a *Adapter) readyOllama(ctx context.Context, wire string) error {
	ps, err := a.fetchCatalog(ctx, "/api/ps")
	psKnown := err == nil
	switch {
	case err == nil:
		if ps.find(wire, true) != nil {
			return nil
		}
	case !isStatus(err, http.StatusNotFound):
		return err
	}
	models := a.p.prefix + "/models"
	cat, err := a.fetchCatalog(ctx, models)
	if err != nil {
		return err
	}
	if cat.find(wire, true) == nil {
		return a.notFound(wire, models, cat)
	}
	if psKnown {
		return a.notLoaded(wire, "it is installed but not in GET /api/ps; Ollama loads it on the first request")
	}
	return nil // an Ollama without /api/ps: listed is all we can know
}

func (a *Adapter) readyLMStudio(ctx context.Context, wire string) error {
	for _, path := range []string{"/api/v1/models", "/api/v0/models"} {
		cat, err := a.fetchCatalog(ctx, path)
		switch {
		case isStatus(err, http.StatusNotFound):
			continue // an older (or newer) LM Studio
		case err != nil:
			return err
		}
		return a.checkListed(wire, path, cat)
	}
	return a.readyListed(ctx, wire, a.p.prefix+"/models")
}

// vllmAwake checks vLLM's sleep mode: a sleeping engine has offloaded its
// weights. Servers without the endpoint (it needs VLLM_SERVER_DEV_MODE)
// answer 404, which is not a failure.
func (a *Adapter) vllmAwake(ctx context.Context, wire string) error {
	resp, err := a.get(ctx, "/is_sleeping")
	if err != nil {
		var ae *canonical.AdapterError
		if errors.As(err, &ae) && ae.Status != 0 {
			return nil
		}
		return err
	}
	defer resp.Body.Close()
	var s struct {
		IsSleeping bool `json:"is_sleeping"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, maxProbeBody)).Decode(&s) == nil && s.IsSleeping {
		return a.notLoaded(wire, "the vLLM engine is sleeping (GET /is_sleeping)")
	}
	return nil
}

func isStatus(err error, status int) bool {
	var ae *canonical.AdapterError
	return errors.As(err, &ae) && ae.Status == status
}

// notFound is the model_not_found error, naming some of what the server
// does list.
func (a *Adapter) notFound(wire, path string, cat *catalog) *canonical.AdapterError {
	names := cat.names(8)
	listed := "it lists no models"
	if len(names) > 0 {
		listed = "it lists " + strings.Join(names, ", ")
	}
	ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound, "ready: model %q is not served: GET %s does not list it (%s)", wire, path, listed)
	ae.Provider = a.Name()
	return ae
}

// notLoaded is the model_not_loaded error: transient, retryable.
func (a *Adapter) notLoaded(wire, format string, args ...any) *canonical.AdapterError {
	ae := canonical.NewError(canonical.ErrServer, canonical.CodeModelNotLoaded, "ready: model %q is not loaded: %s", wire, fmt.Sprintf(format, args...))
	ae.Provider = a.Name()
	return ae
}

// get sends one GET of path under the server root and returns the 2xx
// response, or the classified failure with the probe named.
func (a *Adapter) get(ctx context.Context, path string) (*http.Response, error) {
	return a.request(ctx, http.MethodGet, path, nil)
}

// request sends one probe (a JSON body, if any) to path under the server
// root and returns the 2xx response, or the classified failure with the
// probe named.
func (a *Adapter) request(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	cfg := a.p.cfg
	url := a.p.root + path
	resp, err := a.p.probe.Do(ctx, "", func(ctx context.Context) (*http.Request, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		r, err := http.NewRequestWithContext(ctx, method, url, rd)
		if err != nil {
			return nil, err
		}
		r.Header.Set("Accept", "application/json")
		if body != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		if cfg.APIKey != "" {
			r.Header.Set("Authorization", "Bearer "+cfg.APIKey)
		}
		for k, v := range cfg.ExtraHeaders {
			r.Header.Set(k, v)
		}
		return r, nil
	})
	if err != nil {
		var ae *canonical.AdapterError
		if errors.As(err, &ae) {
			ae.Message = "ready: " + method + " " + path + ": " + ae.Message
		}
		return nil, err
	}
	return resp, nil
}

// getOK sends a GET and discards a 2xx body.
func (a *Adapter) getOK(ctx context.Context, path string) error {
	resp, err := a.get(ctx, path)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxProbeBody))
	return resp.Body.Close()
}

// fetchCatalog GETs path and decodes a model list.
func (a *Adapter) fetchCatalog(ctx context.Context, path string) (*catalog, error) {
	resp, err := a.get(ctx, path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var cat catalog
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxProbeBody)).Decode(&cat); err != nil {
		var (
			syntax *json.SyntaxError
			typ    *json.UnmarshalTypeError
		)
		if errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, driver.InvalidResponse(a.Name(), err, "ready: GET %s: malformed model list: %v", path, err)
		}
		return nil, networkProbe(ctx, a.Name(), http.MethodGet, path, err)
	}
	return &cat, nil
}

// malformedProbe is the invalid_response error of a probe whose 2xx body
// does not parse.
func malformedProbe(provider, method, path string, err error) *canonical.AdapterError {
	return driver.InvalidResponse(provider, err, "ready: %s %s: malformed body: %v", method, path, err)
}

// networkProbe is the error of a probe whose body could not be read.
func networkProbe(ctx context.Context, provider, method, path string, err error) *canonical.AdapterError {
	ae := driver.NetworkError(ctx, provider, err)
	ae.Message = "ready: " + method + " " + path + ": " + ae.Message
	return ae
}

// timeoutOf is the adapter's configured timeout, which bounds a probe.
func timeoutOf(a *Adapter) time.Duration { return driver.Timeout(a.p.cfg) }
