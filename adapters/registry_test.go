package adapters

import (
	"context"
	"errors"
	"iter"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDefaultRegistry(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)

	if diff := cmp.Diff([]string{"anthropic", "azure", "bedrock", "bedrock-converse", "deepseek", "gemini", "llamacpp", "lmstudio", "ollama", "ollama-native", "openai", "openrouter", "vertex", "vertex-anthropic", "vllm"}, reg.Adapters()); diff != "" {
		t.Errorf("reg.Adapters() mismatch (-want +got):\n%s", diff)
	}

	var ids []string
	for _, m := range reg.Models() {
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]string{
		"anthropic:claude-haiku-4-5", "anthropic:claude-opus-4-7", "anthropic:claude-sonnet-4-6",
		"azure:gpt-4.1-mini", "azure:gpt-5-mini", "bedrock-converse:us.anthropic.claude-sonnet-4-5", "bedrock:anthropic.claude-sonnet-4-5", "deepseek:deepseek-reasoner",
		"gemini:gemini-2.5-flash", "gemini:gemini-2.5-pro", "gemini:gemini-3-pro-preview",
		"llamacpp:gpt-oss-20b", "llamacpp:tinyllama-1.1b", "lmstudio:qwen3-8b",
		"ollama-native:qwen3-14b", "ollama:llama-3.3-70b", "ollama:qwen3",
		"openai:gpt-4.1", "openai:gpt-5", "openai:gpt-5-mini",
		"openrouter:deepseek/deepseek-v3", "openrouter:x-ai/grok-4.1-fast", "vertex-anthropic:claude-sonnet-4-5", "vertex:gemini-2.5-pro",
		"vertex:gemini-3-pro-preview", "vllm:qwen2.5-7b-instruct",
	}, ids); diff != "" {
		t.Errorf("sorted by id (-want +got):\n%s", diff)
	}

	opus, err := reg.Resolve("anthropic:claude-opus-4-7")
	require.NoError(t, err)
	if diff := cmp.Diff(ModelConfig{
		ID: "anthropic:claude-opus-4-7", Adapter: "anthropic", WireName: "claude-opus-4-7",
		Tier: "deep", CanDelegate: true, Aliases: []string{"opus", "deep"},
	}, opus); diff != "" {
		t.Errorf("opus mismatch (-want +got):\n%s", diff)
	}

	llama, err := reg.Resolve("ollama:llama-3.3-70b")
	require.NoError(t, err)
	assert.Equal(t, "llama3.3:70b", llama.WireName)
	assert.Equal(t, "ollama", llama.Adapter)

	gpt41, err := reg.Resolve("openai:gpt-4.1")
	require.NoError(t, err)
	if diff := cmp.Diff(map[string]any{"dialect": "chat"}, gpt41.Options); diff != "" {
		t.Errorf("gpt41.Options mismatch (-want +got):\n%s", diff)
	}
	gpt5, err := reg.Resolve("gpt5")
	require.NoError(t, err)
	assert.Equal(t, "responses", gpt5.Options["dialect"])
}

func TestRegistryAliases(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)
	// 000 §8.1.
	for alias, id := range map[string]string{
		"opus": "anthropic:claude-opus-4-7", "deep": "anthropic:claude-opus-4-7",
		"sonnet": "anthropic:claude-sonnet-4-6", "balanced": "anthropic:claude-sonnet-4-6",
		"haiku": "anthropic:claude-haiku-4-5", "fast": "anthropic:claude-haiku-4-5",
		"gpt5": "openai:gpt-5",
	} {
		m, err := reg.Resolve(alias)
		if assert.NoError(t, err, alias) {
			assert.Equal(t, id, m.ID, alias)
		}
	}
}

func TestRegistryResolveUnknown(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)
	for _, name := range []string{"openai:gpt-9", "sonet", ""} {
		_, err := reg.Resolve(name)
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae, name)
		assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
		assert.Equal(t, canonical.CodeModelNotFound, ae.Code)
		assert.Contains(t, ae.Error(), `"`+name+`"`)
	}
}

func TestRegistryConfig(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)

	cfg, err := reg.Config("anthropic", env("ANTHROPIC_API_KEY", "sk-ant-test-FAKE"))
	require.NoError(t, err)
	assert.Equal(t, "anthropic", cfg.Name)
	assert.Equal(t, "anthropic", cfg.Type)
	assert.Equal(t, "sk-ant-test-FAKE", cfg.APIKey)
	assert.Equal(t, "ANTHROPIC_API_KEY", cfg.APIKeyEnv)
	assert.Equal(t, "https://api.anthropic.com", cfg.BaseURL)
	assert.Equal(t, 600*time.Second, cfg.Timeout)
	assert.Equal(t, 2, cfg.MaxRetries)
	if diff := cmp.Diff([]string{"anthropic:claude-opus-4-7", "anthropic:claude-sonnet-4-6", "anthropic:claude-haiku-4-5"}, keys(cfg.Models),
		cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("the adapter's models, in any order (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-sonnet-4-6", cfg.Model("anthropic:claude-sonnet-4-6").WireName)

	or, err := reg.Config("openrouter", env("OPENROUTER_API_KEY", "sk-or-test-FAKE"))
	require.NoError(t, err)
	if diff := cmp.Diff(map[string]string{"HTTP-Referer": "https://github.com/metis-llm/metis", "X-Title": "metis"}, or.ExtraHeaders); diff != "" {
		t.Errorf("or.ExtraHeaders mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "openrouter", or.Options["kind"])
	assert.Equal(t, "deepseek/deepseek-chat", or.Model("openrouter:deepseek/deepseek-v3").WireName)
}

func TestRegistryLocalAdaptersNeedNoKey(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)
	for name, url := range map[string]string{
		"vllm": "http://localhost:8000", "ollama": "http://localhost:11434",
		"lmstudio": "http://localhost:1234", "llamacpp": "http://localhost:8080",
	} {
		cfg, err := reg.Config(name, env())
		require.NoError(t, err, name)
		assert.Equal(t, "openaicompat", cfg.Type, name)
		assert.Empty(t, cfg.APIKey, name)
		assert.Equal(t, url, cfg.BaseURL, name)
		assert.Equal(t, name, cfg.Options["kind"], name)
		assert.Equal(t, DefaultMaxRetries, cfg.MaxRetries, "%s: max_retries absent defaults to 2", name)
	}
}

func TestRegistryMissingKey(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)
	for name, variable := range map[string]string{
		"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY",
		"gemini": "GEMINI_API_KEY", "openrouter": "OPENROUTER_API_KEY",
	} {
		_, err := reg.Config(name, env("UNRELATED", "x"))
		var ae *canonical.AdapterError
		require.ErrorAs(t, err, &ae, name)
		assert.Equal(t, canonical.ErrAuth, ae.Class, name)
		assert.Equal(t, canonical.CodeNotConfigured, ae.Code, name)
		assert.False(t, ae.Retryable, name)
		assert.Equal(t, name, ae.Provider)
		assert.Contains(t, ae.Message, variable, "the error names the variable")
	}
}

func TestRegistryUnknownAdapter(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)
	_, err = reg.Config("mainframe", env())
	assert.Equal(t, canonical.CodeNotConfigured, canonical.CodeOf(err))
	assert.Contains(t, err.Error(), `"mainframe"`)
}

func TestLoadRegistryCustom(t *testing.T) {
	f, err := os.Open("testdata/registry/custom.yaml")
	require.NoError(t, err)
	defer f.Close()
	reg, err := LoadRegistry(f, "custom.yaml")
	require.NoError(t, err)

	cfg, err := reg.Config("corp", nil)
	require.NoError(t, err)
	assert.Equal(t, "sk-test-FAKE", cfg.APIKey, "an inline api_key")
	assert.Equal(t, 12500*time.Millisecond, cfg.Timeout)
	assert.Equal(t, 0, cfg.MaxRetries, "an explicit 0 is kept")
	if diff := cmp.Diff(map[string]string{"X-Team": "metis"}, cfg.ExtraHeaders); diff != "" {
		t.Errorf("cfg.ExtraHeaders mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"kind": "vllm", "nested": map[string]any{"a": []any{1, 2}}}, cfg.Options); diff != "" {
		t.Errorf("cfg.Options mismatch (-want +got):\n%s", diff)
	}

	small, err := reg.Resolve("corp:small")
	require.NoError(t, err)
	assert.Equal(t, "corp", small.Adapter, "adapter defaults to the id's provider part")
	assert.Equal(t, "small", small.WireName, "wire_name defaults to the id's name part")
	assert.JSONEq(t, `{"supports_tools":false,"max_output_tokens":2048,"accepted_image_media_types":["image/png"]}`, string(small.Capabilities))

	sonnet, err := reg.Resolve("eu-sonnet")
	require.NoError(t, err)
	assert.Equal(t, "eu", sonnet.Adapter)

	_, err = reg.Config("eu", env())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "EU_ANTHROPIC_KEY")
	eu, err := reg.Config("eu", env("EU_ANTHROPIC_KEY", "sk-test-FAKE"))
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"anthropic:claude-sonnet-4-6"}, keys(eu.Models)); diff != "" {
		t.Errorf("keys(eu.Models) mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, true, eu.Models["anthropic:claude-sonnet-4-6"].Options["beta"], "model options are kept raw for the adapter to decode")
}

func TestLoadRegistryErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want string // substring of the error, which starts with file:line
	}{
		{"syntax", "adapters:\n  a:\n    type: openai: x\n", "bad.yaml:3: invalid YAML: mapping values are not allowed"},
		{"empty", "", "bad.yaml: empty registry"},
		{"top-level key", "adapters: {}\nmodel: {}\n", "bad.yaml:2: model: unknown top-level key"},
		{"not a mapping", "adapters: [a, b]\n", "bad.yaml:1: adapters: want a mapping"},
		{"unknown adapter field", "adapters:\n  a:\n    type: openaicompat\n    base_ur1: http://x\n", "bad.yaml:4: adapters.a.base_ur1: unknown field"},
		{"missing type", "adapters:\n  a:\n    base_url: http://x\n", "bad.yaml:3: adapters.a.type: missing"},
		{"negative retries", "adapters:\n  a:\n    type: openai\n    max_retries: -1\n", "bad.yaml:4: adapters.a.max_retries: must not be negative"},
		{"retries not a number", "adapters:\n  a:\n    type: openai\n    max_retries: two\n", "bad.yaml:4: adapters.a.max_retries: want an integer"},
		{"zero timeout", "adapters:\n  a:\n    type: openai\n    timeout_seconds: 0\n", "bad.yaml:4: adapters.a.timeout_seconds: must be positive"},
		{"bad base_url", "adapters:\n  a:\n    type: openai\n    base_url: api.openai.com\n", "bad.yaml:4: adapters.a.base_url: want an http(s) URL"},
		{"key twice", "adapters:\n  a:\n    type: openai\n    api_key: k\n    api_key_env: K\n", "bad.yaml:3: adapters.a: set api_key_env or api_key, not both"},
		{"header not a string", "adapters:\n  a:\n    type: openai\n    extra_headers:\n      X: [1]\n", "bad.yaml:5: adapters.a.extra_headers.X: want a string"},
		{"duplicate key", "adapters:\n  a:\n    type: openai\n    type: gemini\n", "bad.yaml:4: adapters.a.type: duplicate key (first at line 3)"},
		{"model id without provider", "adapters:\n  a: {type: openai}\nmodels:\n  gpt-5:\n    adapter: a\n", "bad.yaml:4: models.gpt-5: model ids have the form <provider>:<name>"},
		{"model of unknown adapter", "adapters:\n  a: {type: openai}\nmodels:\n  x:m:\n    tier: fast\n    adapter: b\n", "bad.yaml:6: models.x:m.adapter: no adapter named \"b\""},
		{"model of defaulted unknown adapter", "adapters:\n  a: {type: openai}\nmodels:\n  x:m:\n    tier: fast\n", "bad.yaml:4: models.x:m.adapter: no adapter named \"x\""},
		{"unknown model field", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    wirename: m\n", "bad.yaml:5: models.a:m.wirename: unknown field"},
		{"bad tier", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    tier: huge\n", "bad.yaml:5: models.a:m.tier: unknown tier \"huge\""},
		{"can_delegate not bool", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    can_delegate: maybe\n", "bad.yaml:5: models.a:m.can_delegate: want true or false"},
		{"aliases not a list", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    aliases: m\n", "bad.yaml:5: models.a:m.aliases: want a list"},
		{"duplicate alias", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    aliases: [x]\n  a:n:\n    aliases: [y, x]\n", "bad.yaml:7: models.a:n.aliases[1]: alias \"x\" is already used by a:m (line 5)"},
		{"alias is a model id", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    aliases: [a:n]\n  a:n: {}\n", "bad.yaml:5: models.a:m.aliases: alias \"a:n\" is also a model id"},
		{"unknown capability", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    capabilities:\n      supports_tool: true\n", "bad.yaml:6: models.a:m.capabilities.supports_tool: unknown capability"},
		{"capability of the wrong type", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    capabilities:\n      supports_tools: \"yes\"\n", "bad.yaml:6: models.a:m.capabilities.supports_tools: want bool"},
		{"capability limit not a number", "adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    capabilities:\n      max_context_tokens: lots\n", "bad.yaml:6: models.a:m.capabilities.max_context_tokens: want int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadRegistry(strings.NewReader(tc.yaml), "bad.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			var re *RegistryError
			assert.ErrorAs(t, err, &re)
		})
	}
}

func TestRegistryModelsAreCopies(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)
	m, err := reg.Resolve("opus")
	require.NoError(t, err)
	m.Aliases[0] = "changed"
	again, err := reg.Resolve("opus")
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"opus", "deep"}, again.Aliases); diff != "" {
		t.Errorf("again.Aliases mismatch (-want +got):\n%s", diff)
	}
}

// stubAdapter is an Adapter that records its Config.
type stubAdapter struct{ cfg Config }

func (s *stubAdapter) Name() string                               { return s.cfg.Name }
func (s *stubAdapter) Capabilities(string) canonical.Capabilities { return canonical.Capabilities{} }
func (s *stubAdapter) EstimateInputTokens(*canonical.Request) int { return 0 }
func (s *stubAdapter) Cancel(string) bool                         { return false }
func (s *stubAdapter) Close() error                               { return nil }
func (s *stubAdapter) Complete(context.Context, *canonical.Request) (*canonical.Response, error) {
	return nil, errors.New("stub")
}
func (s *stubAdapter) Stream(context.Context, *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(func(canonical.StreamEvent, error) bool) {}
}

func TestRegistryOpen(t *testing.T) {
	reg, err := DefaultRegistry()
	require.NoError(t, err)
	factories := map[string]Factory{
		"anthropic":    func(c Config) (Adapter, error) { return &stubAdapter{cfg: c}, nil },
		"openaicompat": func(c Config) (Adapter, error) { return nil, errors.New("no server") },
	}
	clock := &testClock{}
	a, err := reg.Open("anthropic", factories, env("ANTHROPIC_API_KEY", "sk-ant-test-FAKE"), func(c *Config) {
		c.Clock = clock
		c.MaxRetries = 5
	})
	require.NoError(t, err)
	stub := a.(*stubAdapter)
	assert.Equal(t, "sk-ant-test-FAKE", stub.cfg.APIKey)
	assert.Same(t, clock, stub.cfg.Clock, "override reaches the factory")
	assert.Equal(t, 5, stub.cfg.MaxRetries)

	_, err = reg.Open("anthropic", factories, env(), nil)
	assert.Equal(t, canonical.CodeNotConfigured, canonical.CodeOf(err), "a missing key stops Open")

	_, err = reg.Open("gemini", factories, env("GEMINI_API_KEY", "k"), nil)
	assert.Equal(t, canonical.CodeNotConfigured, canonical.CodeOf(err))
	assert.Contains(t, err.Error(), `"gemini"`, "no factory for the type")

	_, err = reg.Open("ollama", factories, env(), nil)
	assert.ErrorContains(t, err, "no server")
	assert.ErrorContains(t, err, `"ollama"`)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func FuzzLoadRegistry(f *testing.F) {
	f.Add(defaultModelsYAML)
	if b, err := os.ReadFile("testdata/registry/custom.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("adapters:\n  a: {type: openai}\nmodels:\n  a:m:\n    aliases: [x]\n    capabilities: {supports_tools: true}\n"))
	f.Add([]byte("adapters: &x {a: *x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reg, err := LoadRegistry(strings.NewReader(string(data)), "fuzz.yaml")
		if err != nil {
			var re *RegistryError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *RegistryError", err)
			}
			return
		}
		for _, m := range reg.Models() {
			got, err := reg.Resolve(m.ID)
			if err != nil || got.ID != m.ID {
				t.Fatalf("Resolve(%q) = %v, %v", m.ID, got.ID, err)
			}
			for _, a := range m.Aliases {
				if got, err := reg.Resolve(a); err != nil || got.ID != m.ID {
					t.Fatalf("alias %q resolves to %q, %v; want %q", a, got.ID, err, m.ID)
				}
			}
		}
		for _, name := range reg.Adapters() {
			reg.Config(name, func(string) string { return "k" })
		}
	})
}

// testClock is a Clock with an identity, for assert.Same.
type testClock struct{ RealClock }
