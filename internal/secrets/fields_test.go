package secrets_test

import (
	"encoding/json"
	"testing"

	"github.com/metis-llm/metis/internal/secrets"
)

func TestScrubFields(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"api_key":"abc12345","model":"m"}`, `{"api_key":"REDACTED","model":"m"}`},
		{`{"auth": {"Access-Token" : "x\"y", "refresh_token":"r"}}`, `{"auth": {"Access-Token" : "REDACTED", "refresh_token":"REDACTED"}}`},
		{"data: {\"client_secret\":\"s3cr3t\",\"n\":1}\n\n", "data: {\"client_secret\":\"REDACTED\",\"n\":1}\n\n"},
		{`{"arguments":"{\"password\":\"hunter2\",\"user\":\"bob\"}"}`, `{"arguments":"{\"password\":\"REDACTED\",\"user\":\"bob\"}"}`},
		{`{"token":"Hello","logprob":-1,"max_tokens":5,"api_key_env":"X"}`, `{"token":"Hello","logprob":-1,"max_tokens":5,"api_key_env":"X"}`},
		{`{"api_key":null,"password":3}`, `{"api_key":null,"password":3}`},
	} {
		if got := string(secrets.ScrubFields([]byte(c.in))); got != c.want {
			t.Errorf("ScrubFields(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestReplaceValues(t *testing.T) {
	got := string(secrets.ReplaceValues([]byte(`/v1/k/my-long-key?x=my-long-key&short=abc`), "my-long-key", "abc"))
	if want := `/v1/k/REDACTED?x=REDACTED&short=abc`; got != want {
		t.Errorf("ReplaceValues = %s, want %s", got, want)
	}
}

// FuzzScrubFields: valid JSON stays valid JSON, a second pass changes
// nothing, and no secret field keeps a value other than the placeholder.
func FuzzScrubFields(f *testing.F) {
	f.Add(`{"api_key":"abc","x":{"password":"p\\\"q"}}`)
	f.Add(`{"arguments":"{\"password\":\"hun\\\\ter2\",\"u\":\"b\"}"}`)
	f.Add(`{"arguments":"{\"secret\":\"a\\\"b\\\\\"}"}`)
	f.Add(`["Authorization", {"authorization":"Bearer x"}]`)
	f.Fuzz(func(t *testing.T, s string) {
		out := secrets.ScrubFields([]byte(s))
		if json.Valid([]byte(s)) && !json.Valid(out) {
			t.Fatalf("ScrubFields broke valid JSON:\n in %s\nout %s", s, out)
		}
		if again := secrets.ScrubFields(out); string(again) != string(out) {
			t.Fatalf("not idempotent:\n1st %s\n2nd %s", out, again)
		}
		var v any
		if json.Unmarshal(out, &v) == nil {
			checkNoSecretField(t, v, s)
		}
	})
}

func checkNoSecretField(t *testing.T, v any, in string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && secrets.IsSecretField(k) && s != secrets.Placeholder {
				t.Fatalf("field %q kept %q (input %s)", k, s, in)
			}
			checkNoSecretField(t, e, in)
		}
	case []any:
		for _, e := range x {
			checkNoSecretField(t, e, in)
		}
	}
}

// Form, query and multipart names: every JSON credential name, and the
// ones that are credentials only there; header names: anything that
// mentions a credential.
func TestIsSecretParamAndHeader(t *testing.T) {
	for _, c := range []struct {
		name         string
		field, param bool
		header       bool
	}{
		{"client_secret", true, true, true},
		{"client_assertion", true, true, true},
		{"code_verifier", true, true, true},
		{"key", false, true, true},
		{"code", false, true, true},
		{"sig", false, true, true},
		{"signature", false, true, true},
		{"X-Amz-Signature", false, true, true},
		{"X-Amz-Security-Token", true, true, true},
		{"X-Auth-Token", false, false, true},
		{"Ocp-Apim-Subscription-Key", false, true, true},
		{"Set-Cookie", true, true, true},
		{"alt", false, false, false},
		{"User-Agent", false, false, false},
		{"X-Session-Id", false, false, false},
		{"OpenAI-Organization", false, false, false},
	} {
		if got := secrets.IsSecretField(c.name); got != c.field {
			t.Errorf("IsSecretField(%q) = %v, want %v", c.name, got, c.field)
		}
		if got := secrets.IsSecretParam(c.name); got != c.param {
			t.Errorf("IsSecretParam(%q) = %v, want %v", c.name, got, c.param)
		}
		if got := secrets.IsSecretHeader(c.name); got != c.header {
			t.Errorf("IsSecretHeader(%q) = %v, want %v", c.name, got, c.header)
		}
	}
}
