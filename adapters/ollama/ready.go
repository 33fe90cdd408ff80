package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// maxProbeBody bounds the body of a probe's answer.
const maxProbeBody = 16 << 20

// Ready reports whether model (a canonical id such as
// "ollama-native:qwen3-14b") can serve now. It never runs a chat: it GETs
// /api/tags (the installed models) and POSTs /api/show for the model,
// once each, no retries, bounded by ctx and the configured timeout. What
// /api/show reports is remembered as the model's capabilities (see
// Learn). The outcomes:
//
//	installed, /api/show answers       nil
//	not in /api/tags, or /api/show 404 invalid_request, Code model_not_found
//	401, 403 (a proxy)                 auth
//	no connection                      network
//	5xx                                server_error
//	a 2xx body that is not JSON        server_error, Code invalid_response
//
// Ollama loads an installed model on the first request that names it, so
// an installed model is ready even when not loaded (the first call waits
// for the load). Errors are *canonical.AdapterError whose message names
// the probe ("ready: GET /api/tags: ...").
func (a *Adapter) Ready(ctx context.Context, model string) error {
	if model == "" {
		ae := canonical.NewError(canonical.ErrInvalidRequest, "", "ready: no model given")
		ae.Provider = a.Name()
		return ae
	}
	ctx, cancel := context.WithTimeout(ctx, driver.Timeout(a.p.cfg))
	defer cancel()
	wire := a.Model(model).WireName
	names, err := a.models(ctx)
	if err != nil {
		return err
	}
	if !listed(names, wire) {
		listedText := "it lists no models"
		if len(names) > 0 {
			listedText = "it lists " + strings.Join(names[:min(len(names), 8)], ", ")
		}
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound, "ready: model %q is not installed: GET /api/tags does not list it (%s)", wire, listedText)
		ae.Provider = a.Name()
		return ae
	}
	_, err = a.learn(ctx, wire)
	return err
}

// Models returns the names of the models the server has installed (GET
// /api/tags), as the server spells them ("qwen3:latest").
func (a *Adapter) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, driver.Timeout(a.p.cfg))
	defer cancel()
	return a.models(ctx)
}

// Learn asks the server what model (a canonical id) can do (POST
// /api/show: its capabilities list, "completion", "tools", "thinking",
// "vision", and its context length) and makes that the model's
// declaration from then on; models.yaml capabilities still win. It
// returns the capabilities Capabilities now declares.
func (a *Adapter) Learn(ctx context.Context, model string) (canonical.Capabilities, error) {
	ctx, cancel := context.WithTimeout(ctx, driver.Timeout(a.p.cfg))
	defer cancel()
	if _, err := a.learn(ctx, a.Model(model).WireName); err != nil {
		return canonical.Capabilities{}, err
	}
	return a.Capabilities(model), nil
}

// listed reports whether names holds wire, a name without a tag standing
// for its ":latest".
func listed(names []string, wire string) bool {
	for _, n := range names {
		if n == wire || n == wire+":latest" || strings.TrimSuffix(n, ":latest") == wire {
			return true
		}
	}
	return false
}

// models GETs /api/tags.
func (a *Adapter) models(ctx context.Context) ([]string, error) {
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := a.probe(ctx, http.MethodGet, "/api/tags", nil, &tags); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(tags.Models))
	for _, m := range tags.Models {
		n := m.Name
		if n == "" {
			n = m.Model
		}
		names = append(names, n)
	}
	return names, nil
}

// learn POSTs /api/show for wire and remembers the answer.
func (a *Adapter) learn(ctx context.Context, wire string) (shown, error) {
	body, _ := json.Marshal(map[string]string{"model": wire})
	var show struct {
		Capabilities []string                   `json:"capabilities"`
		ModelInfo    map[string]json.RawMessage `json:"model_info"`
	}
	if err := a.probe(ctx, http.MethodPost, "/api/show", body, &show); err != nil {
		return shown{}, err
	}
	s := shown{capabilities: show.Capabilities}
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			var n int
			if json.Unmarshal(v, &n) == nil && n > 0 {
				s.context = n
			}
		}
	}
	a.p.mu.Lock()
	a.p.learned[wire] = s
	a.p.mu.Unlock()
	return s, nil
}

// probe sends one request of path under the server root and decodes its
// 2xx JSON answer into v, or returns the classified failure with the
// probe named.
func (a *Adapter) probe(ctx context.Context, method, path string, body []byte, v any) error {
	cfg := a.p.cfg
	what := "ready: " + method + " " + path
	resp, err := a.p.probe.Do(ctx, "", func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, method, a.p.root+path, bytes.NewReader(body))
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
			ae.Message = what + ": " + ae.Message
		}
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxProbeBody)).Decode(v); err != nil {
		var (
			syntax *json.SyntaxError
			typ    *json.UnmarshalTypeError
		)
		if errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return driver.InvalidResponse(a.Name(), err, "%s: malformed answer: %v", what, err)
		}
		ae := driver.NetworkError(ctx, a.Name(), err)
		ae.Message = what + ": " + ae.Message
		return ae
	}
	return nil
}
