package providers_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// warnings is a slog.Handler keeping the WARN messages and their model
// attribute.
type warnings struct {
	mu  sync.Mutex
	got []string
}

func (w *warnings) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	if r.Level != slog.LevelWarn {
		return nil
	}
	model := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "model" {
			model = a.Value.String()
		}
		return true
	})
	w.mu.Lock()
	w.got = append(w.got, model+": "+r.Message)
	w.mu.Unlock()
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func runtimeEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func TestRuntimeServesAnyProviderModel(t *testing.T) {
	srv := emulator.NewServer(emulator.WithReplies(emulator.Reply{Text: "Hi."}))
	defer srv.Close()
	w := &warnings{}
	rt, err := providers.NewRuntime(adapters.RuntimeOptions{
		Getenv: runtimeEnv(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-FAKE", "ANTHROPIC_BASE_URL": srv.URL}),
		Logger: slog.New(w), Configure: func(c *adapters.Config) { c.Logger = slog.New(slog.DiscardHandler) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()

	const model = "anthropic:claude-future-9"
	a, err := rt.Adapter(model)
	if err != nil {
		t.Fatal(err)
	}
	again, err := rt.Adapter(model)
	if err != nil || again != a {
		t.Fatalf("second lookup: %v, same adapter %v", err, again == a)
	}
	if declared, _ := rt.Adapter("anthropic:claude-sonnet-4-6"); declared != a {
		t.Error("a declared model of the same adapter got another adapter instance")
	}
	// One WARN, for the undeclared model only.
	if len(w.got) != 1 || !strings.HasPrefix(w.got[0], model+": adapters: model not declared in the registry") {
		t.Errorf("warnings %q", w.got)
	}
	// Anthropic's conservative declaration for a model outside its table.
	caps := a.Capabilities(model)
	if caps.MaxOutputTokens != 4096 || caps.SupportsImages || !caps.SupportsTools {
		t.Errorf("capabilities of an unknown Claude model: %+v", caps)
	}
	// The wire name is the part after the colon; the call reaches the
	// base URL from ANTHROPIC_BASE_URL.
	resp, err := a.Complete(context.Background(), &canonical.Request{Model: model, MaxOutputTokens: 100,
		Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Hello"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content.Text() != "Hi." || !strings.Contains(string(srv.Requests()[0].Body), `"model":"claude-future-9"`) {
		t.Errorf("reply %q, request %s", resp.Content.Text(), srv.Requests()[0].Body)
	}
}

func TestRuntimeDeclaredModelsWin(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "models.yaml")
	yaml := "adapters:\n  anthropic: {type: anthropic, api_key_env: MY_KEY}\n" +
		"models:\n  anthropic:small:\n    wire_name: claude-haiku-4-5\n    capabilities: {supports_images: false}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &warnings{}
	rt, err := providers.NewRuntime(adapters.RuntimeOptions{ModelsFile: file, Logger: slog.New(w),
		Getenv: runtimeEnv(map[string]string{"MY_KEY": "k", "OPENAI_API_KEY": "sk-FAKE"})})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	a, err := rt.Adapter("anthropic:small")
	if err != nil {
		t.Fatal(err)
	}
	// Haiku 4.5's declaration (64000 output tokens) with the file's
	// override, and no WARN.
	if caps := a.Capabilities("anthropic:small"); caps.SupportsImages || caps.MaxOutputTokens != 64000 {
		t.Errorf("declared model's capabilities %+v", caps)
	}
	if len(w.got) != 0 {
		t.Errorf("warnings for a declared model: %q", w.got)
	}
	// An adapter the file does not declare comes from the embedded
	// registry.
	if a, err := rt.Adapter("openai:gpt-5"); err != nil || a.Name() != "openai" {
		t.Errorf("openai from the defaults: %v", err)
	}
}

func TestRuntimeErrors(t *testing.T) {
	const otherKey = "sk-other-SECRET-4242"
	rt, err := providers.NewRuntime(adapters.RuntimeOptions{Logger: slog.New(slog.DiscardHandler),
		Getenv: runtimeEnv(map[string]string{"OPENAI_API_KEY": otherKey})})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model, code string
		class       canonical.ErrorClass
		want        []string
	}{
		{"anthropic:claude-sonnet-4-6", canonical.CodeNotConfigured, canonical.ErrAuth,
			[]string{"ANTHROPIC_API_KEY", "api_key_env", "models.yaml", "api_key there", "Config.APIKey"}},
		{"claude-sonnet", canonical.CodeModelNotFound, canonical.ErrInvalidRequest, []string{`"claude-sonnet"`, `"provider:model"`}},
		{"sonnet", canonical.CodeModelNotFound, canonical.ErrInvalidRequest, []string{`"sonnet" is an alias of anthropic:claude-sonnet-4-6`, "canonical id"}},
		{"nosuch:model", canonical.CodeModelNotFound, canonical.ErrInvalidRequest, []string{`no adapter named "nosuch"`, "anthropic, azure"}},
	} {
		_, err := rt.Adapter(tc.model)
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) || ae.Code != tc.code || ae.Class != tc.class {
			t.Errorf("%s: %v, want %s/%s", tc.model, err, tc.class, tc.code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.model, err, w)
			}
		}
		if strings.Contains(err.Error(), otherKey) {
			t.Errorf("%s: the error prints a key: %q", tc.model, err)
		}
	}
	if _, err := providers.NewRuntime(adapters.RuntimeOptions{ModelsFile: filepath.Join(t.TempDir(), "none.yaml")}); err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("a missing models file: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Adapter("openai:gpt-5"); err == nil {
		t.Error("Adapter after Close: no error")
	}
}

func TestBaseURLEnv(t *testing.T) {
	for name, want := range map[string]string{"anthropic": "ANTHROPIC_BASE_URL", "vertex-anthropic": "VERTEX_ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"} {
		if got := adapters.BaseURLEnv(name); got != want {
			t.Errorf("BaseURLEnv(%q) = %q, want %q", name, got, want)
		}
	}
}
