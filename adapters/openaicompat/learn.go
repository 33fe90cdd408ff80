package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/metis-llm/metis/canonical"
)

// learned is what a server said one model can do (Discover). A nil field
// is something the server did not say.
type learned struct {
	tools, thinking, images *bool
	context                 int // the context the server serves, 0 if unsaid
}

// apply sets on c what the server said.
func (l learned) apply(c *canonical.Capabilities) {
	if l.tools != nil {
		c.SupportsTools = *l.tools
	}
	if l.thinking != nil {
		c.SupportsThinking = *l.thinking
	}
	if l.images != nil {
		c.SupportsImages = *l.images
	}
	if l.context > 0 {
		c.MaxContextTokens = l.context
	}
}

// learnedCaps holds what Discover learned, by wire name.
type learnedCaps struct {
	mu sync.Mutex
	m  map[string]learned
}

func (l *learnedCaps) get(wire string) (learned, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.m[wire]
	return v, ok
}

func (l *learnedCaps) set(wire string, v learned) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]learned{}
	}
	l.m[wire] = v
}

// Discover asks the server what model (a canonical id) can do and makes
// the adapter's declaration follow the answer: Capabilities then returns
// the kind's base, what the server said, and the models.yaml
// capabilities of the model on top (they still win, field by field). It
// returns that declaration. Like Ready it never runs a completion and
// sends each probe once, bounded by ctx and the configured timeout. The
// probes and what each says, by kind:
//
//	ollama     POST /api/show {"model": wire}: "capabilities" lists
//	           "tools", "thinking", "vision" (each absent one is false)
//	lmstudio   GET /api/v1/models (LM Studio 0.4: capabilities
//	           {trained_for_tool_use, vision, reasoning}; the loaded
//	           instance's context_length), else GET /api/v0/models
//	           (type "vlm" for images, capabilities ["tool_use"] for tools;
//	           loaded_context_length)
//	llamacpp   GET /props (?model=wire in router mode): chat_template_caps
//	           supports_tools or supports_tool_calls (the chat template,
//	           i.e. --jinja), modalities.vision, default_generation_settings
//	           n_ctx (the context the server was started with)
//
// Other kinds report nothing a declaration could follow (vLLM's
// /v1/models gives max_model_len, not tool support, which depends on its
// flags): Discover returns the declaration unchanged without a request.
// A model the server does not list is model_not_found; other failures
// are classified as Ready's are, and leave what was learned before.
func (a *Adapter) Discover(ctx context.Context, model string) (canonical.Capabilities, error) {
	if model == "" {
		ae := canonical.NewError(canonical.ErrInvalidRequest, "", "discover: no model given")
		ae.Provider = a.Name()
		return canonical.Capabilities{}, ae
	}
	ctx, cancel := context.WithTimeout(ctx, timeoutOf(a))
	defer cancel()
	wire := a.Model(model).WireName
	var (
		l   learned
		err error
	)
	switch a.p.kind {
	case KindOllama:
		l, err = a.learnOllama(ctx, wire)
	case KindLMStudio:
		l, err = a.learnLMStudio(ctx, wire)
	case KindLlamaCpp:
		l, err = a.learnLlamaCpp(ctx, wire)
	default:
		return a.Capabilities(model), nil
	}
	if err != nil {
		return canonical.Capabilities{}, err
	}
	a.p.learned.set(wire, l)
	return a.Capabilities(model), nil
}

// flag returns a pointer to v.
func flag(v bool) *bool { return &v }

// learnOllama reads POST /api/show.
func (a *Adapter) learnOllama(ctx context.Context, wire string) (learned, error) {
	body, err := json.Marshal(map[string]string{"model": wire})
	if err != nil {
		return learned{}, err
	}
	var show struct {
		Capabilities []string `json:"capabilities"`
	}
	if err := a.fetchJSON(ctx, http.MethodPost, "/api/show", body, &show); err != nil {
		if isStatus(err, http.StatusNotFound) {
			ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound, "ready: model %q is not served: POST /api/show answered 404", wire)
			ae.Provider = a.Name()
			return learned{}, ae
		}
		return learned{}, err
	}
	if show.Capabilities == nil {
		return learned{}, nil // an Ollama before 0.6 says nothing
	}
	has := func(c string) *bool { return flag(slices.Contains(show.Capabilities, c)) }
	return learned{tools: has("tools"), thinking: has("thinking"), images: has("vision")}, nil
}

// learnLMStudio reads the model's entry of LM Studio's own model list.
func (a *Adapter) learnLMStudio(ctx context.Context, wire string) (learned, error) {
	for _, path := range []string{"/api/v1/models", "/api/v0/models"} {
		cat, err := a.fetchCatalog(ctx, path)
		switch {
		case isStatus(err, http.StatusNotFound):
			continue
		case err != nil:
			return learned{}, err
		}
		e := cat.find(wire, false)
		if e == nil {
			return learned{}, a.notFound(wire, path, cat)
		}
		return e.learned(), nil
	}
	return learned{}, nil // an LM Studio without its own API says nothing
}

// learned reads what an LM Studio catalogue entry says of its model.
func (e *catalogEntry) learned() learned {
	var l learned
	caps := bytes.TrimSpace(e.Capabilities)
	switch {
	case len(caps) > 0 && caps[0] == '{': // 0.4: an object
		var c struct {
			Vision    *bool           `json:"vision"`
			Tools     *bool           `json:"trained_for_tool_use"`
			Reasoning json.RawMessage `json:"reasoning"`
		}
		if json.Unmarshal(caps, &c) == nil {
			l.images, l.tools = c.Vision, c.Tools
			if r := bytes.TrimSpace(c.Reasoning); len(r) > 0 {
				l.thinking = flag(string(r) != "false" && string(r) != "null")
			}
		}
	case len(caps) > 0 && caps[0] == '[': // 0.3: a list
		var c []string
		if json.Unmarshal(caps, &c) == nil {
			l.tools = flag(slices.Contains(c, "tool_use"))
		}
	}
	switch e.Type {
	case "vlm":
		l.images = flag(true)
	case "llm":
		if l.images == nil && len(caps) > 0 && caps[0] == '[' {
			l.images = flag(false)
		}
	}
	l.context = e.LoadedContextLength
	if e.LoadedInstances != nil {
		for _, raw := range *e.LoadedInstances {
			var inst struct {
				Config struct {
					ContextLength int `json:"context_length"`
				} `json:"config"`
			}
			if json.Unmarshal(raw, &inst) == nil && inst.Config.ContextLength > 0 {
				l.context = inst.Config.ContextLength
				break
			}
		}
	}
	return l
}

// learnLlamaCpp reads GET /props.
func (a *Adapter) learnLlamaCpp(ctx context.Context, wire string) (learned, error) {
	var props struct {
		Settings *struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		Modalities *struct {
			Vision bool `json:"vision"`
		} `json:"modalities"`
		TemplateCaps map[string]json.RawMessage `json:"chat_template_caps"`
	}
	path := "/props"
	if err := a.fetchJSON(ctx, http.MethodGet, path, nil, &props); err != nil {
		if !isStatus(err, http.StatusBadRequest) {
			return learned{}, err
		}
		// The router (several models) wants the model named.
		path = "/props?model=" + url.QueryEscape(wire)
		if err := a.fetchJSON(ctx, http.MethodGet, path, nil, &props); err != nil {
			return learned{}, err
		}
	}
	var l learned
	if props.TemplateCaps != nil {
		tools := false
		for _, k := range []string{"supports_tools", "supports_tool_calls"} {
			tools = tools || strings.TrimSpace(string(props.TemplateCaps[k])) == "true"
		}
		l.tools = &tools
	}
	if props.Modalities != nil {
		l.images = flag(props.Modalities.Vision)
	}
	if props.Settings != nil {
		l.context = props.Settings.NCtx
	}
	return l, nil
}

// fetchJSON sends one probe and decodes its 2xx JSON body into v.
func (a *Adapter) fetchJSON(ctx context.Context, method, path string, body []byte, v any) error {
	resp, err := a.request(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxProbeBody)).Decode(v); err != nil {
		var (
			syntax *json.SyntaxError
			typ    *json.UnmarshalTypeError
		)
		if errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return malformedProbe(a.Name(), method, path, err)
		}
		return networkProbe(ctx, a.Name(), method, path, err)
	}
	return nil
}
