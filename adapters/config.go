package adapters

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/metis-llm/metis/internal/secrets"
)

// A Config prints without its credentials: String (so %v, %+v, %s),
// GoString (%#v), LogValue (slog) and MarshalJSON show the key as
// [REDACTED], and so every extra header, option or base-URL query value
// that holds a credential (by its name, or by its shape: see
// internal/secrets). The fields themselves are untouched. Runtime parts
// (HTTPClient, Transport, Logger, Clock, OnAttempt, Observer, Tokens)
// print only whether they are set.

// configView is what a Config prints: the settings, credentials redacted.
type configView struct {
	Name         string                 `json:"name,omitempty"`
	Type         string                 `json:"type,omitempty"`
	APIKey       string                 `json:"api_key,omitempty"`
	APIKeyEnv    string                 `json:"api_key_env,omitempty"`
	BaseURL      string                 `json:"base_url,omitempty"`
	Timeout      string                 `json:"timeout,omitempty"`
	MaxRetries   int                    `json:"max_retries"`
	ExtraHeaders map[string]string      `json:"extra_headers,omitempty"`
	Options      map[string]any         `json:"options,omitempty"`
	Models       map[string]ModelConfig `json:"models,omitempty"`
}

// view returns c's printable form.
func (c Config) view() configView {
	v := configView{
		Name: c.Name, Type: c.Type, APIKeyEnv: c.APIKeyEnv, BaseURL: secrets.Redact(redactQuery(c.BaseURL)),
		MaxRetries: c.MaxRetries, Models: c.Models,
	}
	if c.APIKey != "" {
		v.APIKey = secrets.Redacted
	}
	if c.Timeout != 0 {
		v.Timeout = c.Timeout.String()
	}
	if c.ExtraHeaders != nil {
		v.ExtraHeaders = make(map[string]string, len(c.ExtraHeaders))
		for k, val := range c.ExtraHeaders {
			v.ExtraHeaders[k] = redactValue(k, val)
		}
	}
	v.Options = redactOptions(c.Options)
	if len(c.Models) > 0 {
		v.Models = make(map[string]ModelConfig, len(c.Models))
		for id, m := range c.Models {
			m.Options = redactOptions(m.Options)
			v.Models[id] = m
		}
	}
	return v
}

// redactValue hides val when its name says it is a credential, and any
// credential-shaped part of it otherwise.
func redactValue(name, val string) string {
	if secrets.IsSecretField(name) && val != "" {
		return secrets.Redacted
	}
	return secrets.Redact(val)
}

// redactOptions copies opts with credential values hidden, recursively.
func redactOptions(opts map[string]any) map[string]any {
	if opts == nil {
		return nil
	}
	out := make(map[string]any, len(opts))
	for k, v := range opts {
		out[k] = redactAny(k, v)
	}
	return out
}

func redactAny(name string, v any) any {
	switch v := v.(type) {
	case string:
		return redactValue(name, v)
	case map[string]any:
		return redactOptions(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactAny(name, e)
		}
		return out
	case []string:
		out := make([]string, len(v))
		for i, e := range v {
			out[i] = redactValue(name, e)
		}
		return out
	}
	if secrets.IsSecretField(name) && v != nil {
		return secrets.Redacted
	}
	return v
}

// redactQuery hides the values of query parameters whose names say they
// are credentials (?key=..., ?api_key=...).
func redactQuery(u string) string {
	base, query, ok := strings.Cut(u, "?")
	if !ok {
		return u
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if secrets.IsSecretField(name) || strings.EqualFold(name, "key") {
			parts[i] = name + "=" + secrets.Redacted
		}
	}
	return base + "?" + strings.Join(parts, "&")
}

// String formats the settings of c with credentials redacted, as
// "adapters.Config{Name:..., APIKey:[REDACTED], ...}".
func (c Config) String() string {
	v := c.view()
	var b strings.Builder
	key := `""`
	if v.APIKey != "" {
		key = v.APIKey
	}
	fmt.Fprintf(&b, "adapters.Config{Name:%q, Type:%q, APIKey:%s, APIKeyEnv:%q, BaseURL:%q, Timeout:%s, MaxRetries:%d",
		v.Name, v.Type, key, v.APIKeyEnv, v.BaseURL, c.Timeout, v.MaxRetries)
	if len(v.ExtraHeaders) > 0 {
		fmt.Fprintf(&b, ", ExtraHeaders:%v", v.ExtraHeaders)
	}
	if len(v.Options) > 0 {
		fmt.Fprintf(&b, ", Options:%v", v.Options)
	}
	if len(v.Models) > 0 {
		fmt.Fprintf(&b, ", Models:%q", slices.Sorted(maps.Keys(v.Models)))
	}
	for _, set := range []struct {
		name string
		ok   bool
	}{
		{"HTTPClient", c.HTTPClient != nil}, {"Transport", c.Transport != nil}, {"Logger", c.Logger != nil},
		{"Clock", c.Clock != nil}, {"OnAttempt", c.OnAttempt != nil}, {"Observer", c.Observer != nil},
		{"Tokens", c.Tokens != nil},
	} {
		if set.ok {
			fmt.Fprintf(&b, ", %s:set", set.name)
		}
	}
	b.WriteString("}")
	return b.String()
}

// GoString is %#v's form, the same as String: credentials redacted.
func (c Config) GoString() string { return c.String() }

// LogValue makes slog log c as a group of its settings, credentials
// redacted.
func (c Config) LogValue() slog.Value {
	v := c.view()
	attrs := []slog.Attr{slog.String("name", v.Name), slog.String("type", v.Type)}
	if v.APIKey != "" {
		attrs = append(attrs, slog.String("api_key", v.APIKey))
	}
	if v.APIKeyEnv != "" {
		attrs = append(attrs, slog.String("api_key_env", v.APIKeyEnv))
	}
	if v.BaseURL != "" {
		attrs = append(attrs, slog.String("base_url", v.BaseURL))
	}
	if c.Timeout != 0 {
		attrs = append(attrs, slog.Duration("timeout", c.Timeout))
	}
	attrs = append(attrs, slog.Int("max_retries", v.MaxRetries))
	if len(v.ExtraHeaders) > 0 {
		attrs = append(attrs, slog.Any("extra_headers", v.ExtraHeaders))
	}
	if len(v.Options) > 0 {
		attrs = append(attrs, slog.Any("options", v.Options))
	}
	if len(v.Models) > 0 {
		attrs = append(attrs, slog.Any("models", slices.Sorted(maps.Keys(v.Models))))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON encodes c's settings, credentials redacted; the runtime
// parts (client, logger, callbacks) are left out.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.view()) }
