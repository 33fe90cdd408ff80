package record_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/replay/equiv"
)

// TestCommittedGeminiSignaturesAreBase64: a thoughtSignature is a bytes
// field in Gemini's API, so every one a committed Gemini or Vertex
// Gemini cassette holds is base64. A response's is what Gemini sends,
// the standard alphabet padded (every real recording's; an SDK that
// decodes it with encoding/json rejects anything else); a request's is
// what protobuf's JSON mapping reads (either alphabet, padding optional:
// Google's Python SDK sends the URL-safe one). Issue #28: scripted
// signatures such as "sig-round-1" made adapters on Google's SDK fail
// replays a real Gemini answer never would.
func TestCommittedGeminiSignaturesAreBase64(t *testing.T) {
	root := filepath.Join("..", "..", "cassettes")
	var checked int
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Contains(data, []byte("thoughtSignature")) && !bytes.Contains(data, []byte("thought_signature")) {
			return nil
		}
		if _, body, ok := bytes.Cut(data, []byte("\n---\n")); ok {
			data = body
		}
		var c cassette.Cassette
		if err := yaml.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, in := range c.Interactions {
			u, err := url.Parse(in.Request.URL)
			if err != nil || equiv.FormatOf(u.Path) != equiv.Gemini {
				continue
			}
			checked++
			for _, bad := range badSignatures(in.Response.Body, strictSignature) {
				t.Errorf("%s: interaction %d: response thoughtSignature %s", p, in.ID, bad)
			}
			for _, bad := range badSignatures(in.Request.Body, protoSignature) {
				t.Errorf("%s: interaction %d: request thoughtSignature %s", p, in.ID, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Errorf("checked %d Gemini interactions with a signature, want at least 20: is %s the cassette directory?", checked, root)
	}
}

// strictSignature accepts a signature as Gemini sends it: standard
// base64, padded.
func strictSignature(s string) error {
	_, err := base64.StdEncoding.Strict().DecodeString(s)
	if err == nil && strings.ContainsAny(s, "\r\n") {
		err = fmt.Errorf("holds a line break")
	}
	if err != nil {
		return fmt.Errorf("is not padded standard base64, as Gemini sends it: %w", err)
	}
	return nil
}

// protoSignature accepts a signature as Gemini's API reads it.
func protoSignature(s string) error {
	if _, err := equiv.ProtoBytes(s); err != nil {
		return fmt.Errorf("is not base64 in either alphabet, as Gemini's API reads bytes")
	}
	return nil
}

// badSignatures returns, quoted with the reason, each thoughtSignature
// (or thought_signature) in body that check rejects. body is one JSON
// value, or a server-sent event stream of them; anything else holds none.
func badSignatures(body string, check func(string) error) []string {
	var values []any
	var v any
	if json.Unmarshal([]byte(body), &v) == nil {
		values = append(values, v)
	} else {
		sc := bufio.NewScanner(strings.NewReader(body))
		sc.Buffer(nil, len(body)+1)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if ok && json.Unmarshal([]byte(strings.TrimSpace(data)), &v) == nil {
				values = append(values, v)
			}
		}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if s, ok := v[k].(string); ok && (k == "thoughtSignature" || k == "thought_signature") {
					if err := check(s); err != nil {
						out = append(out, fmt.Sprintf("%q %v", s, err))
					}
					continue
				}
				walk(v[k])
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, v := range values {
		walk(v)
	}
	return out
}

// TestBadSignatures: the committed-file check finds a scripted signature
// in each body shape a Gemini cassette holds, and passes real ones.
func TestBadSignatures(t *testing.T) {
	const sse = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"f\"},\"thoughtSignature\": \"%s\"}]}}]}\r\n\r\n"
	for _, c := range []struct {
		name, body string
		check      func(string) error
		bad        int
	}{
		{"stream, scripted name", fmt.Sprintf(sse, "sig-round-1"), strictSignature, 1},
		{"stream, 23 characters", fmt.Sprintf(sse, "c2lnLXZlcmJhdGltLTQy+/="), strictSignature, 1},
		{"stream, padded standard", fmt.Sprintf(sse, "c2lnLXZlcmJhdGltLTQy+/8="), strictSignature, 0},
		{"stream, URL-safe is not what Gemini sends", fmt.Sprintf(sse, "c2lnLXZlcmJhdGltLTQy-_8="), strictSignature, 1},
		{"stream, unpadded is not what Gemini sends", fmt.Sprintf(sse, "c2lnLXJvdW5kLTE"), strictSignature, 1},
		{"two events, one bad", fmt.Sprintf(sse, "c2lnLXJvdW5kLTE=") + fmt.Sprintf(sse, "sig-round-2"), strictSignature, 1},
		{"JSON array stream", `[{"candidates":[{"content":{"parts":[{"thoughtSignature":"sig-prime-97"}]}}]}]`, strictSignature, 1},
		{"request, URL-safe placeholder", `{"contents":[{"role":"model","parts":[{"thoughtSignature":"skip_thought_signature_validator"}]}]}`, protoSignature, 0},
		{"request, snake_case, not bytes", `{"contents":[{"role":"model","parts":[{"thought_signature":"sig.round.1"}]}]}`, protoSignature, 1},
		{"request, both alphabets", `{"contents":[{"parts":[{"thoughtSignature":"-/8="}]}]}`, protoSignature, 1},
		{"not JSON", "sig-round-1", strictSignature, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := badSignatures(c.body, c.check); len(got) != c.bad {
				t.Errorf("badSignatures = %q, want %d", got, c.bad)
			}
		})
	}
}
