package secrets_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/internal/secrets"
)

// Made-up credentials of each shape. None is real.
var shapes = []struct {
	name, text, secret string
}{
	{"anthropic", `x-api-key: sk-ant-api03-Zq9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfE-dcba_AA`, "sk-ant-api03-Zq9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfE-dcba_AA"},
	{"anthropic admin", `key=sk-ant-admin01-Zq9x8W7v6U5t4S3r2Q1p0Onm`, "sk-ant-admin01-Zq9x8W7v6U5t4S3r2Q1p0Onm"},
	{"openai project", `"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"`, "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"},
	{"openai admin", `OPENAI_ADMIN=sk-admin-Ab3dEf6hIj9kLm2nOp5qRs8t`, "sk-admin-Ab3dEf6hIj9kLm2nOp5qRs8t"},
	{"openai service account", `sk-svcacct-Ab3dEf6hIj9kLm2nOp5qRs8t`, "sk-svcacct-Ab3dEf6hIj9kLm2nOp5qRs8t"},
	{"openai legacy", `Incorrect API key provided: sk-Ab3dEf6hIj9kLm2nOp5qT3BlbkFJ.`, "sk-Ab3dEf6hIj9kLm2nOp5qT3BlbkFJ"},
	{"google", `?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&alt=sse`, "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
	{"google oauth", `Authorization: ya29.a0AfH6SMBx3kq9Zz8Yy7Xx6Ww5Vv4`, "ya29.a0AfH6SMBx3kq9Zz8Yy7Xx6Ww5Vv4"},
	{"aws", `aws_access_key_id = AKIAIOSFODNN7EXAMPLE`, "AKIAIOSFODNN7EXAMPLE"},
	{"github classic", `token ghp_16C7e42F292c6912E7710c838347Ae178B4a`, "ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
	{"github fine-grained", `github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz`, "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"},
	{"slack", `xoxb-1234567890-abcdefghij`, "xoxb-1234567890-abcdefghij"},
	{"jwt", `id_token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U rest`,
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	{"bearer", `Authorization: Bearer 4f9c2e1a7b3d8e6f0a5c9b2d`, "Bearer 4f9c2e1a7b3d8e6f0a5c9b2d"},
	{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "-----BEGIN RSA PRIVATE KEY-----"},
	{"generic json", `{"client_secret": "q8Xv2LmZ7rT4kW9pN3bF6hJ1"}`, "q8Xv2LmZ7rT4kW9pN3bF6hJ1"},
	{"generic token", `access_token='Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5'`, "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5"},
	{"generic env", "export DEEPSEEK_API_KEY=q8Xv2LmZ7rT4kW9pN3bF6hJ1\n", "q8Xv2LmZ7rT4kW9pN3bF6hJ1"},
}

func TestFindEveryShape(t *testing.T) {
	for _, c := range shapes {
		t.Run(c.name, func(t *testing.T) {
			ms := secrets.Find([]byte(c.text))
			var got []string
			for _, m := range ms {
				got = append(got, c.text[m.Start:m.End])
			}
			if diff := cmp.Diff([]string{c.secret}, got); diff != "" {
				t.Errorf("Find(%q) (-want +got):\n%s", c.text, diff)
			}
			red := secrets.Redact(c.text)
			if strings.Contains(red, c.secret) || !strings.Contains(red, secrets.Redacted) {
				t.Errorf("Redact(%q) = %q", c.text, red)
			}
		})
	}
}

// Things that look a little like secrets and are not: usage counters,
// words, paths, provider ids, placeholders.
func TestFindLeavesNonSecrets(t *testing.T) {
	for _, text := range []string{
		`{"max_tokens": 4096, "input_tokens": 12, "cache_creation_input_tokens": 0}`,
		`{"api_key_env": "ANTHROPIC_API_KEY_FOR_THE_WORKSPACE"}`,
		`{"token": "Hello", "logprob": -0.25}`,
		`{"tool_use_id": "toolu_01A09q90qw90lq917835lq9"}`,
		`{"next_page_token": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`,
		`{"secret": "/home/user/.config/metis/keys.yaml"}`,
		`sk-short`, `Bearer short`, `AKIA-not-a-key`,
		`"signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"`,
		`password: "correct horse battery staple"`,
	} {
		if ms := secrets.Find([]byte(text)); len(ms) > 0 {
			t.Errorf("Find(%q) = %v, want nothing", text, ms)
		}
		if got := secrets.Redact(text); got != text {
			t.Errorf("Redact(%q) = %q, want it unchanged", text, got)
		}
	}
}

func TestRedactKeepsTheRest(t *testing.T) {
	in := `401: invalid x-api-key sk-ant-api03-Zq9x8W7v6U5t4S3r2Q1p0OnMlKjI and AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY.`
	want := `401: invalid x-api-key [REDACTED] and [REDACTED].`
	if got := secrets.Redact(in); got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

// FuzzRedact: Redact never panics, leaves nothing Find recognises, and
// changes nothing in a text without secrets.
func FuzzRedact(f *testing.F) {
	for _, c := range shapes {
		f.Add(c.text)
	}
	f.Add(`{"max_tokens": 4096}`)
	f.Add("Bearer Bearer sk-sk-sk-")
	f.Fuzz(func(t *testing.T, s string) {
		ms := secrets.Find([]byte(s))
		for i, m := range ms {
			if m.Start < 0 || m.End > len(s) || m.Start >= m.End || (i > 0 && m.Start < ms[i-1].End) {
				t.Fatalf("bad matches %v for %q", ms, s)
			}
		}
		red := secrets.Redact(s)
		if len(ms) == 0 && red != s {
			t.Fatalf("Redact changed a text without secrets: %q → %q", s, red)
		}
		for _, m := range ms {
			if secret := s[m.Start:m.End]; strings.Contains(red, secret) {
				t.Fatalf("Redact(%q) = %q still holds %s %q", s, red, m.Kind, secret)
			}
		}
	})
}
