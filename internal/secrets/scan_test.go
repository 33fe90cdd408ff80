package secrets_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/metis-llm/metis/internal/secrets"
	"github.com/metis-llm/metis/internal/secrets/secretstest"
)

// escapes are the sequences a key may follow in a recorded body, as JSON,
// YAML, URLs and HTML write them.
var escapes = []string{`\n`, `\r\n`, `\t`, `\u0022`, `\"`, `\/`, `\\n`, `%22`, `%0A`, `%0D%0A`, `%20`, `&quot;`, `\x22`}

// found reports whether a finding holds the key (its middle, so that a
// shape that runs on over a neighbour's letters still counts).
func found(fs []secrets.Finding, key string) bool {
	mid := key[4:16]
	for _, f := range fs {
		if strings.Contains(f.Secret, mid) {
			return true
		}
	}
	return false
}

// TestScanFindsKeysAfterEscapes: every bare key shape is found right
// after each escape sequence, raw and inside a JSON string, a YAML
// double-quoted string and a percent-encoded URL.
func TestScanFindsKeysAfterEscapes(t *testing.T) {
	for _, k := range secretstest.Keys() {
		if !k.Bare {
			continue
		}
		for _, esc := range escapes {
			for name, text := range map[string]string{
				"raw":  "text" + esc + k.Value + " end",
				"json": `{"content":"text` + esc + k.Value + `"}`,
				"json-in-json": func() string {
					b, _ := json.Marshal(map[string]string{"body": `{"content":"text` + esc + k.Value + `"}`})
					return string(b)
				}(),
				"yaml":        "body: \"text" + esc + k.Value + "\"\n",
				"url":         "https://x.example.com/s?q=" + url.QueryEscape("a"+esc+k.Value),
				"base64-json": `{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(`{"t":"x`+esc+k.Value+`"}`)) + `"}`,
				"yaml-binary": "body: !!binary |\n    " + base64.StdEncoding.EncodeToString([]byte("\x00\x01"+esc+k.Value+"\xff")) + "\nnext: 1\n",
			} {
				if fs := secrets.Scan([]byte(text)); !found(fs, k.Value) {
					t.Errorf("%s after %s in %s: Scan = %v", k.Shape, esc, name, fs)
				}
			}
		}
	}
}

// TestScanFindsKeysInCredentialPositions: the keys no shape knows by
// itself (an AWS secret key, an Azure key, a SAS signature, an opaque
// token) are found where a name says they are credentials.
func TestScanFindsKeysInCredentialPositions(t *testing.T) {
	for _, k := range secretstest.Keys() {
		for _, text := range []string{
			`{"aws_secret_access_key": "` + k.Value + `"}`,
			`{"api-key":"` + k.Value + `"}`,
			"AZURE_OPENAI_API_KEY=" + k.Value + "\n",
			"headers:\n    Api-Key:\n        - " + k.Value + "\n",
			"https://acct.blob.core.windows.net/c?sv=2024&sig=" + url.QueryEscape(k.Value),
			`{"body":"{\"client_secret\":\"` + k.Value + `\"}"}`,
		} {
			if fs := secrets.Scan([]byte(text)); !found(fs, k.Value) {
				t.Errorf("%s in %q: Scan = %v", k.Shape, text, fs)
			}
		}
	}
}

// TestScanLeavesAllowedIDs: random-looking values the contract keeps, in
// credential-like positions, are not secrets.
func TestScanLeavesAllowedIDs(t *testing.T) {
	for _, text := range []string{
		`{"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds8Qw"}`,
		`{"thoughtSignature":"CiQB0e2Kb7Qm9ZrX4vW1sT8yN3pL6aH2jF5gD0cE9bU7iO4kMnQ"}`,
		`{"thought_signature":"CiQB0e2Kb7Qm9ZrX4vW1sT8yN3pL6aH2jF5gD0cE9bU7iO4kMnQ"}`,
		`{"next_page_token":"Q2hBS0VnbFlkR1Z6ZEdGMGFXOXVNVEl6"}`,
		`{"prompt_cache_key":"u7Hk2Lp9Qw3Er5Ty8Ui1Op4As6Df"}`,
		`{"idempotency_key":"01J9ZK3W8Q5V7X2M4N6P8R0T2Y"}`,
		`{"token":"01J9ZK3W8Q5V7X2M4N6P8R0T2Y"}`,
		`{"key":"toolu_01A09q90qw90lq917835lq9x"}`,
		`{"session_token":"msg_01XFDUDYJgAACzvnptvVoYEL"}`,
		"Credential=AKID/20260514/us-east-1/bedrock/aws4_request",
		`p.tokens = oauth2.ReuseTokenSource9x(nil, ts)`,
		`{"api_key":"REDACTED","password":"REDACTED"}`,
		`{"encrypted_content":"gAAAAABo2Xk9s8Lw3mQzV1nR7pT5yU2iO4aS6dF8gH0jK1lZ3xC5vB7nM9q"}`,
	} {
		if fs := secrets.Scan([]byte(text)); len(fs) > 0 {
			t.Errorf("Scan(%q) = %v, want nothing", text, fs)
		}
	}
}

// A compressed body (a client that asked for gzip itself) is recorded as
// !!binary gzip data: the scan expands it.
func TestScanGzipBinary(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(`{"text":"sk-proj-` + strings.Repeat("Ab3dEf6hIj", 3) + `"}`))
	_ = zw.Close()
	text := "body: !!binary |\n    " + base64.StdEncoding.EncodeToString(buf.Bytes()) + "\n"
	if fs := secrets.Scan([]byte(text)); len(fs) != 1 || fs[0].Line != 1 {
		t.Errorf("Scan = %v, want the key on line 1", fs)
	}
}

func TestScanLinesAndKeys(t *testing.T) {
	data := "a: 1\nb: \"x\\nsk-proj-" + strings.Repeat("Ab3dEf6hIj", 3) + "\"\nc: my-configured-key-value\n"
	fs := secrets.Scan([]byte(data), "my-configured-key-value", "short")
	if len(fs) != 2 || fs[0].Line != 2 || fs[1].Line != 3 || fs[1].Kind != secrets.ConfiguredKey {
		t.Errorf("Scan = %+v, want the project key on line 2 and the configured key on line 3", fs)
	}
}

// FuzzScan: a bare key planted after any text, in any of the encodings a
// cassette or a body may give it, is found; Scan never panics.
func FuzzScan(f *testing.F) {
	f.Add("text\\n", " end", uint8(0), uint8(0))
	f.Add("%22", "", uint8(3), uint8(3))
	f.Add("sk-", "Z", uint8(2), uint8(1))
	f.Add("\x00\xff", "\"", uint8(6), uint8(4))
	keys := secretstest.Keys()
	f.Fuzz(func(t *testing.T, prefix, suffix string, which, encoding uint8) {
		k := keys[int(which)%len(keys)]
		plain := prefix + k.Value + " " + suffix
		var text string
		switch encoding % 6 {
		case 0:
			text = plain
		case 1:
			b, _ := json.Marshal(plain)
			text = `{"content":` + string(b) + `}`
		case 2:
			b, _ := json.Marshal(plain)
			b, _ = json.Marshal(`{"a":` + string(b) + `}`)
			text = "body: " + string(b) + "\n"
		case 3:
			text = "https://x.example.com/?q=" + url.QueryEscape(plain)
		case 4:
			text = `{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(`{"t":`+strings.ToValidUTF8(jsonQuote(plain), "")+`}`)) + `"}`
		case 5:
			text = "body: !!binary |\n    " + base64.StdEncoding.EncodeToString([]byte(plain)) + "\n"
		}
		fs := secrets.Scan([]byte(text))
		if k.Bare && !found(fs, k.Value) {
			t.Fatalf("%s not found in %q: %v", k.Shape, text, fs)
		}
	})
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
