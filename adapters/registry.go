package adapters

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/canonical"
)

//go:embed models.yaml
var defaultModelsYAML []byte

// DefaultMaxRetries is the max_retries of an adapter entry that sets none.
const DefaultMaxRetries = 2

// Tiers a model entry may declare.
var registryTiers = []string{"fast", "balanced", "deep"}

// Registry is the model registry of 000 §8.1: the adapter instances of an
// installation and the models each serves, loaded from a models.yaml file.
// It is read-only once loaded and safe for concurrent use.
type Registry struct {
	file     string
	adapters map[string]adapterSpec
	models   map[string]ModelConfig
	aliases  map[string]string // alias → canonical id
}

// adapterSpec is one entry of the adapters: section.
type adapterSpec struct {
	name         string
	typ          string
	apiKey       string
	apiKeyEnv    string
	baseURL      string
	timeout      time.Duration
	maxRetries   int
	extraHeaders map[string]string
	options      map[string]any
}

// Factory builds an Adapter from its Config. Provider packages' New
// functions return concrete types, so callers wrap them, taking care not
// to return a typed nil on error:
//
//	factories := map[string]adapters.Factory{
//		"anthropic": func(c adapters.Config) (adapters.Adapter, error) {
//			a, err := anthropic.New(c)
//			if err != nil {
//				return nil, err
//			}
//			return a, nil
//		},
//	}
type Factory func(Config) (Adapter, error)

// RegistryError reports a problem in a registry file: the file, the line
// (0 when unknown) and the dotted path of the offending field.
type RegistryError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error formats the error as "file:line: field: message".
func (e *RegistryError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// DefaultRegistry returns the registry embedded in this package
// (adapters/models.yaml). Each call returns a fresh copy.
func DefaultRegistry() (*Registry, error) {
	return LoadRegistry(bytes.NewReader(defaultModelsYAML), "models.yaml")
}

// LoadRegistry parses a models.yaml document. filename is used only in
// error messages, which name the file, the line and the field; unknown
// keys are errors so that typos do not pass silently.
func LoadRegistry(r io.Reader, filename string) (*Registry, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &RegistryError{File: filename, Msg: fmt.Sprintf("reading: %v", err)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlSyntaxError(filename, err)
	}
	p := &registryParser{file: filename}
	reg := &Registry{
		file:     filename,
		adapters: map[string]adapterSpec{},
		models:   map[string]ModelConfig{},
		aliases:  map[string]string{},
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, p.errf(nil, "", "empty registry: want a mapping with adapters: and models:")
	}
	root := doc.Content[0]
	var adaptersNode, modelsNode *yaml.Node
	err = p.mapping(root, "", func(key string, k, v *yaml.Node) error {
		switch key {
		case "adapters":
			adaptersNode = v
		case "models":
			modelsNode = v
		default:
			return p.errf(k, key, "unknown top-level key (want adapters or models)")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if adaptersNode != nil {
		err := p.mapping(adaptersNode, "adapters", func(name string, k, v *yaml.Node) error {
			spec, err := p.adapter(name, v)
			if err != nil {
				return err
			}
			reg.adapters[name] = spec
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if modelsNode != nil {
		aliasLine := map[string]int{}
		err := p.mapping(modelsNode, "models", func(id string, k, v *yaml.Node) error {
			m, lines, err := p.model(id, k, v)
			if err != nil {
				return err
			}
			if _, ok := reg.adapters[m.Adapter]; !ok {
				return p.errf(lines["adapter"], "models."+id+".adapter", "no adapter named %q in adapters:", m.Adapter)
			}
			for i, a := range m.Aliases {
				field := fmt.Sprintf("models.%s.aliases[%d]", id, i)
				if prev, ok := reg.aliases[a]; ok {
					return p.errf(lines["aliases"], field, "alias %q is already used by %s (line %d)", a, prev, aliasLine[a])
				}
				reg.aliases[a] = id
				aliasLine[a] = lines["aliases"].Line
			}
			reg.models[id] = m
			return nil
		})
		if err != nil {
			return nil, err
		}
		// An alias that equals a model id would make lookups ambiguous.
		for a, id := range reg.aliases {
			if _, ok := reg.models[a]; ok {
				return nil, &RegistryError{File: filename, Line: aliasLine[a], Field: "models." + id + ".aliases", Msg: fmt.Sprintf("alias %q is also a model id", a)}
			}
		}
	}
	return reg, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntaxError turns yaml's "yaml: line N: msg" into a RegistryError.
func yamlSyntaxError(file string, err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &RegistryError{File: file, Line: line, Msg: "invalid YAML: " + m[2]}
	}
	return &RegistryError{File: file, Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// registryParser walks the YAML tree, reporting errors with positions.
type registryParser struct{ file string }

func (p *registryParser) errf(n *yaml.Node, field, format string, args ...any) error {
	e := &RegistryError{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line = n.Line
	}
	return e
}

// mapping calls f for each key of the mapping n in order, rejecting
// anything that is not a mapping and duplicate or non-scalar keys.
func (p *registryParser) mapping(n *yaml.Node, field string, f func(key string, k, v *yaml.Node) error) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // "models:" with nothing under it
	}
	if n.Kind != yaml.MappingNode {
		return p.errf(n, field, "want a mapping, got %s", kindName(n))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return p.errf(k, field, "keys must be scalars")
		}
		if prev, ok := seen[k.Value]; ok {
			return p.errf(k, join(field, k.Value), "duplicate key (first at line %d)", prev)
		}
		seen[k.Value] = k.Line
		if err := f(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

func (p *registryParser) adapter(name string, n *yaml.Node) (adapterSpec, error) {
	base := "adapters." + name
	spec := adapterSpec{name: name, maxRetries: DefaultMaxRetries}
	if name == "" || strings.ContainsAny(name, ": \t") {
		return spec, p.errf(n, base, "adapter names may not be empty or contain ':' or spaces")
	}
	err := p.mapping(n, base, func(key string, k, v *yaml.Node) error {
		field := base + "." + key
		var err error
		switch key {
		case "type":
			spec.typ, err = p.str(v, field)
		case "api_key_env":
			spec.apiKeyEnv, err = p.str(v, field)
		case "api_key":
			spec.apiKey, err = p.str(v, field)
		case "base_url":
			if spec.baseURL, err = p.str(v, field); err == nil {
				u, perr := url.Parse(spec.baseURL)
				if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					err = p.errf(v, field, "want an http(s) URL, got %q", spec.baseURL)
				}
			}
		case "timeout_seconds":
			var s float64
			if s, err = p.float(v, field); err == nil {
				if s <= 0 {
					err = p.errf(v, field, "must be positive, got %v", s)
				}
				spec.timeout = time.Duration(s * float64(time.Second))
			}
		case "max_retries":
			if spec.maxRetries, err = p.int(v, field); err == nil && spec.maxRetries < 0 {
				err = p.errf(v, field, "must not be negative, got %d", spec.maxRetries)
			}
		case "extra_headers":
			spec.extraHeaders, err = p.strMap(v, field)
		case "options":
			spec.options, err = p.anyMap(v, field)
		default:
			err = p.errf(k, field, "unknown field (want type, api_key_env, api_key, base_url, timeout_seconds, max_retries, extra_headers or options)")
		}
		return err
	})
	if err != nil {
		return spec, err
	}
	if spec.typ == "" {
		return spec, p.errf(n, base+".type", "missing (want anthropic, openai, gemini or openaicompat)")
	}
	if spec.apiKey != "" && spec.apiKeyEnv != "" {
		return spec, p.errf(n, base, "set api_key_env or api_key, not both")
	}
	return spec, nil
}

// model parses one models: entry; lines maps field names to their value
// nodes for later errors.
func (p *registryParser) model(id string, k, n *yaml.Node) (ModelConfig, map[string]*yaml.Node, error) {
	base := "models." + id
	m := ModelConfig{ID: id}
	lines := map[string]*yaml.Node{}
	provider, name, ok := strings.Cut(id, ":")
	if !ok || provider == "" || name == "" {
		return m, nil, p.errf(k, base, "model ids have the form <provider>:<name>")
	}
	err := p.mapping(n, base, func(key string, kn, v *yaml.Node) error {
		field := base + "." + key
		lines[key] = v
		var err error
		switch key {
		case "adapter":
			m.Adapter, err = p.str(v, field)
		case "wire_name":
			m.WireName, err = p.str(v, field)
		case "tier":
			if m.Tier, err = p.str(v, field); err == nil && !slices.Contains(registryTiers, m.Tier) {
				err = p.errf(v, field, "unknown tier %q (want %s)", m.Tier, strings.Join(registryTiers, ", "))
			}
		case "can_delegate":
			m.CanDelegate, err = p.bool(v, field)
		case "aliases":
			m.Aliases, err = p.strList(v, field)
		case "capabilities":
			m.Capabilities, err = p.capabilities(v, field)
		case "options":
			m.Options, err = p.anyMap(v, field)
		case "compensations":
			m.Compensations, err = p.compensations(v, field)
		default:
			err = p.errf(kn, field, "unknown field (want adapter, wire_name, tier, can_delegate, aliases, capabilities, options or compensations)")
		}
		return err
	})
	if err != nil {
		return m, nil, err
	}
	if m.Adapter == "" {
		m.Adapter = provider
		lines["adapter"] = k
	}
	if m.WireName == "" {
		m.WireName = name
	}
	return m, lines, nil
}

// capabilityFields maps the JSON names of canonical.Capabilities fields
// to their Go types.
var capabilityFields = func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	t := reflect.TypeFor[canonical.Capabilities]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = f.Type
		}
	}
	return out
}()

// capabilities checks every override against canonical.Capabilities and
// returns the overrides as a JSON object.
func (p *registryParser) capabilities(n *yaml.Node, field string) (json.RawMessage, error) {
	obj := map[string]any{}
	err := p.mapping(n, field, func(key string, k, v *yaml.Node) error {
		f := field + "." + key
		typ, ok := capabilityFields[key]
		if !ok {
			known := make([]string, 0, len(capabilityFields))
			for name := range capabilityFields {
				known = append(known, name)
			}
			slices.Sort(known)
			return p.errf(k, f, "unknown capability (want one of %s)", strings.Join(known, ", "))
		}
		var val any
		if err := v.Decode(&val); err != nil {
			return p.errf(v, f, "%v", err)
		}
		// Check the value against the field's type through JSON, exactly
		// as ModelConfig.Apply will decode it.
		raw, err := json.Marshal(val)
		if err != nil {
			return p.errf(v, f, "%v", err)
		}
		if err := json.Unmarshal(raw, reflect.New(typ).Interface()); err != nil {
			return p.errf(v, f, "want %s, got %s", typ, kindName(v))
		}
		obj[key] = val
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(obj) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, p.errf(n, field, "%v", err)
	}
	return raw, nil
}

func (p *registryParser) str(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.errf(n, field, "want a string, got %s", kindName(n))
	}
	return n.Value, nil
}

func (p *registryParser) int(n *yaml.Node, field string) (int, error) {
	var v int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		return 0, p.errf(n, field, "want an integer, got %s", kindName(n))
	}
	return v, nil
}

func (p *registryParser) float(n *yaml.Node, field string) (float64, error) {
	var v float64
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&v) != nil {
		return 0, p.errf(n, field, "want a number, got %s", kindName(n))
	}
	return v, nil
}

func (p *registryParser) bool(n *yaml.Node, field string) (bool, error) {
	var v bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil {
		return false, p.errf(n, field, "want true or false, got %s", kindName(n))
	}
	return v, nil
}

func (p *registryParser) strList(n *yaml.Node, field string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errf(n, field, "want a list of strings, got %s", kindName(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		s, err := p.str(c, fmt.Sprintf("%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, p.errf(c, fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *registryParser) strMap(n *yaml.Node, field string) (map[string]string, error) {
	out := map[string]string{}
	err := p.mapping(n, field, func(key string, _, v *yaml.Node) error {
		s, err := p.str(v, field+"."+key)
		out[key] = s
		return err
	})
	return out, err
}

func (p *registryParser) anyMap(n *yaml.Node, field string) (map[string]any, error) {
	out := map[string]any{}
	err := p.mapping(n, field, func(key string, _, v *yaml.Node) error {
		var val any
		if err := v.Decode(&val); err != nil {
			return p.errf(v, field+"."+key, "%v", err)
		}
		out[key] = val
		return nil
	})
	return out, err
}

// Resolve returns the model entry for a canonical id or an alias. An
// unknown name is an invalid_request AdapterError with code
// model_not_found that names it.
func (r *Registry) Resolve(idOrAlias string) (ModelConfig, error) {
	id := idOrAlias
	if canon, ok := r.aliases[id]; ok {
		id = canon
	}
	m, ok := r.models[id]
	if !ok {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeModelNotFound, "model %q is not in the registry %s", idOrAlias, r.file)
		ae.Provider = canonical.ProviderOf(idOrAlias)
		return ModelConfig{}, ae
	}
	return copyModel(m), nil
}

// Models returns every model entry, sorted by canonical id.
func (r *Registry) Models() []ModelConfig {
	out := make([]ModelConfig, 0, len(r.models))
	for _, m := range r.models {
		out = append(out, copyModel(m))
	}
	slices.SortFunc(out, func(a, b ModelConfig) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Adapters returns the names of the registry's adapter instances, sorted.
func (r *Registry) Adapters() []string {
	out := make([]string, 0, len(r.adapters))
	for name := range r.adapters {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Config returns the Config of the named adapter instance, with Models
// holding every model it serves. getenv (nil: os.Getenv) resolves
// api_key_env and is the Config's Getenv, for the variables an adapter
// reads itself (cloud credentials). A key is required when the entry names an api_key_env:
// when that variable is empty the error is Config.KeyError's (auth,
// code not_configured, naming the variable; 000 §8.2). Whether an adapter
// type needs a key at all is its own package's business: Open returns
// the same error from the factory of a type that needs one (Anthropic,
// OpenAI, Gemini), never from a local openaicompat server.
func (r *Registry) Config(adapterName string, getenv func(string) string) (Config, error) {
	spec, ok := r.adapters[adapterName]
	if !ok {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeNotConfigured, "no adapter named %q in the registry %s", adapterName, r.file)
		ae.Provider = adapterName
		return Config{}, ae
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := Config{
		Name:       spec.name,
		Type:       spec.typ,
		APIKey:     spec.apiKey,
		APIKeyEnv:  spec.apiKeyEnv,
		BaseURL:    spec.baseURL,
		Timeout:    spec.timeout,
		MaxRetries: spec.maxRetries,
		Models:     map[string]ModelConfig{},
		Getenv:     getenv,
	}
	if spec.apiKeyEnv != "" {
		cfg.APIKey = getenv(spec.apiKeyEnv)
		if err := cfg.KeyError(); err != nil {
			return Config{}, err
		}
	}
	if len(spec.extraHeaders) > 0 {
		cfg.ExtraHeaders = make(map[string]string, len(spec.extraHeaders))
		for k, v := range spec.extraHeaders {
			cfg.ExtraHeaders[k] = v
		}
	}
	if len(spec.options) > 0 {
		cfg.Options = make(map[string]any, len(spec.options))
		for k, v := range spec.options {
			cfg.Options[k] = v
		}
	}
	for id, m := range r.models {
		if m.Adapter == adapterName {
			cfg.Models[id] = copyModel(m)
		}
	}
	return cfg, nil
}

// Open builds the named adapter: it resolves its Config, lets override
// adjust it (to inject an HTTPClient, Clock, OnAttempt or Logger; nil
// for none), and calls the factory registered for the adapter's type.
func (r *Registry) Open(adapterName string, factories map[string]Factory, getenv func(string) string, override func(*Config)) (Adapter, error) {
	cfg, err := r.Config(adapterName, getenv)
	if err != nil {
		return nil, err
	}
	if override != nil {
		override(&cfg)
	}
	f, ok := factories[cfg.Type]
	if !ok || f == nil {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeNotConfigured, "adapter %q has type %q, for which no factory is registered", adapterName, cfg.Type)
		ae.Provider = adapterName
		return nil, ae
	}
	a, err := f(cfg)
	if err != nil {
		return nil, fmt.Errorf("opening adapter %q: %w", adapterName, err)
	}
	return a, nil
}

// copyModel returns m with its own Aliases, Capabilities and Options, so
// that callers cannot change the registry through what it returns.
func copyModel(m ModelConfig) ModelConfig {
	m.Aliases = slices.Clone(m.Aliases)
	m.Capabilities = slices.Clone(m.Capabilities)
	m.Compensations = m.Compensations.clone()
	if m.Options != nil {
		opts := make(map[string]any, len(m.Options))
		for k, v := range m.Options {
			opts[k] = v
		}
		m.Options = opts
	}
	return m
}
