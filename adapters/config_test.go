package adapters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigNeverPrintsKey: however a Config is printed — fmt's verbs,
// slog (text and JSON handlers, as a value and inside a group), JSON —
// the key, a credential in an extra header, a secret option and a key in
// the base URL's query are replaced, while the rest stays readable.
func TestConfigNeverPrintsKey(t *testing.T) {
	const (
		key      = "sk-ant-api03-TESTONLYzN8kqL2vP9xR4mW7bT1cY6hJ3fD5gS0aQ-FAKE"
		bearer   = "Bearer sk-proj-TESTONLYq8Wm2Lx9Rv4Nc7Tb1Zy6Hk3Jd5Fg0Sa"
		optToken = "TESTONLYp7Lw2Qx9Rv4Nc7Tb1Zy6Hk3Jd5Fg0SaB"
		urlKey   = "AIzaSyTESTONLY0123456789abcdefghijklmno"
	)
	cfg := Config{
		Name: "anthropic", Type: "anthropic", APIKey: key, APIKeyEnv: "ANTHROPIC_API_KEY",
		BaseURL:      "https://proxy.example/v1?key=" + urlKey,
		Timeout:      30 * time.Second,
		MaxRetries:   2,
		ExtraHeaders: map[string]string{"Authorization": bearer, "X-Title": "metis"},
		Options:      map[string]any{"access_token": optToken, "beta": "files-api-2025-04-14"},
		Models:       map[string]ModelConfig{"anthropic:claude-x": {WireName: "claude-x"}},
	}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("text", "cfg", cfg, "ptr", &cfg)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("json", "cfg", cfg, slog.Group("g", "cfg", &cfg))
	js, err := json.Marshal(cfg)
	require.NoError(t, err)
	jsPtr, err := json.Marshal(&cfg)
	require.NoError(t, err)
	outputs := map[string]string{
		"%v": fmt.Sprintf("%v", cfg), "%+v": fmt.Sprintf("%+v", cfg), "%#v": fmt.Sprintf("%#v", cfg),
		"%s": fmt.Sprintf("%s", cfg), "%q": fmt.Sprintf("%q", cfg), "*%v": fmt.Sprintf("%v", &cfg),
		"*%+v": fmt.Sprintf("%+v", &cfg), "*%#v": fmt.Sprintf("%#v", &cfg), "Sprint": fmt.Sprint(cfg),
		"in a struct": fmt.Sprintf("%+v", struct{ C Config }{cfg}),
		"slog":        logs.String(), "json": string(js), "json ptr": string(jsPtr),
	}
	for name, out := range outputs {
		for _, secret := range []string{key, "sk-ant-api03", bearer, "sk-proj", optToken, urlKey} {
			assert.NotContains(t, out, secret, "%s leaks a secret:\n%s", name, out)
		}
		for _, kept := range []string{"anthropic", "ANTHROPIC_API_KEY", "proxy.example", "X-Title"} {
			assert.Contains(t, out, kept, "%s lost a harmless field:\n%s", name, out)
		}
	}
	assert.Contains(t, outputs["%v"], "APIKey:[REDACTED]")
	assert.True(t, strings.HasPrefix(outputs["%#v"], "adapters.Config{"), outputs["%#v"])
	var back map[string]any
	require.NoError(t, json.Unmarshal(js, &back))
	assert.Equal(t, "[REDACTED]", back["api_key"])
	assert.Equal(t, "metis", back["extra_headers"].(map[string]any)["X-Title"])

	// A Config without a key says so rather than showing a placeholder.
	empty := Config{Name: "vllm"}
	assert.Contains(t, fmt.Sprintf("%v", empty), `APIKey:""`)
	// The value itself is untouched.
	assert.Equal(t, key, cfg.APIKey)
	assert.Equal(t, bearer, cfg.ExtraHeaders["Authorization"])
}
