package sigv4

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	keyID  = "AKIDEXAMPLE"
	secret = "fake-aws-secret-for-tests"
)

func secrets(id string) (string, bool) { return secret, id == keyID }

// signed returns a request to url signed as a client would, with body.
func signed(t *testing.T, url string, body []byte, session string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret, SessionToken: session}
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, r, hex.EncodeToString(sum[:]), "bedrock", "us-east-1", time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)))
	return r
}

// received sends r to a server and returns what it received.
func received(t *testing.T, r *http.Request, mutate func(*http.Request)) (got *http.Request, body []byte) {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, in *http.Request) {
		body, _ = io.ReadAll(in.Body)
		got = in.Clone(context.Background())
		close(done)
	}))
	defer srv.Close()
	// Send the signed request to the test server, keeping the signed
	// URL's path and query.
	out := r.Clone(context.Background())
	out.URL.Scheme, out.URL.Host, out.Host = "http", srv.Listener.Addr().String(), ""
	var err error
	out.Body, err = r.GetBody()
	require.NoError(t, err)
	if mutate != nil {
		mutate(out)
	}
	resp, err := http.DefaultClient.Do(out)
	require.NoError(t, err)
	resp.Body.Close()
	<-done
	return got, body
}

func TestVerify(t *testing.T) {
	body := []byte(`{"anthropic_version":"bedrock-2023-05-31","max_tokens":10}`)
	signedHost := "bedrock-runtime.us-east-1.amazonaws.com"
	r := signed(t, "https://"+signedHost+"/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke", body, "")
	got, gotBody := received(t, r, nil)

	a, err := Verify(got, gotBody, secrets, signedHost)
	require.NoError(t, err, "a request signed by the SDK verifies, past the transport's own headers")
	assert.Equal(t, Authorization{AccessKeyID: keyID, Date: "20260514", Region: "us-east-1", Service: "bedrock",
		SignedHeaders: a.SignedHeaders, Signature: a.Signature}, a)
	assert.Contains(t, a.SignedHeaders, "host")

	_, err = Verify(got, gotBody, secrets, got.Host)
	assert.Error(t, err, "signed for another host")
	_, err = Verify(got, append(gotBody, ' '), secrets, signedHost)
	assert.Error(t, err, "a changed body")
	_, err = Verify(got, gotBody, func(string) (string, bool) { return "other-secret", true }, signedHost)
	assert.Error(t, err, "a wrong secret")
	_, err = Verify(got, gotBody, func(string) (string, bool) { return "", false }, signedHost)
	assert.ErrorContains(t, err, `unknown access key id "AKIDEXAMPLE"`)

	tampered, tbody := received(t, r, func(out *http.Request) { out.Header.Set("Content-Type", "text/plain") })
	_, err = Verify(tampered, tbody, secrets, signedHost)
	assert.Error(t, err, "a changed signed header")

	withSession := signed(t, "https://"+signedHost+"/model/m/invoke", body, "session-token-example")
	got, gotBody = received(t, withSession, nil)
	a, err = Verify(got, gotBody, secrets, signedHost)
	require.NoError(t, err)
	assert.Contains(t, a.SignedHeaders, "x-amz-security-token")
}

func TestParse(t *testing.T) {
	for _, bad := range []string{
		"",
		"Bearer abc",
		"AWS4-HMAC-SHA256 Credential=AKID/20260514/us-east-1/bedrock",
		"AWS4-HMAC-SHA256 Credential=AKID/20260514/us-east-1/bedrock/aws4_request",
		"AWS4-HMAC-SHA256 Credential",
	} {
		_, err := Parse(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260514/us-east-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=abc")
	f.Add("AWS4-HMAC-SHA256 ,,,=")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err == nil && (a.AccessKeyID == "" || a.Signature == "" || len(a.SignedHeaders) == 0) {
			t.Fatalf("Parse(%q) accepted an incomplete header: %+v", s, a)
		}
	})
}
