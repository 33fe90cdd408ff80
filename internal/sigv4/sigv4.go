// Package sigv4 checks AWS Signature Version 4 on requests received by
// the emulator and by tests, by signing the request again with the AWS
// SDK for Go v2's signer and comparing: what a server does, without
// re-implementing the algorithm. Only the headers the client signed
// (SignedHeaders) take part, as on AWS, so headers a transport adds after
// signing (Accept-Encoding, User-Agent) do not matter.
package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Algorithm is the scheme of a SigV4 Authorization header.
const Algorithm = "AWS4-HMAC-SHA256"

// Authorization is a parsed SigV4 Authorization header.
type Authorization struct {
	AccessKeyID   string
	Date          string // yyyymmdd
	Region        string
	Service       string
	SignedHeaders []string
	Signature     string
}

// ErrNotSigV4 is an Authorization header of another scheme, or none.
var ErrNotSigV4 = errors.New("sigv4: the request is not signed with " + Algorithm)

// Parse reads a SigV4 Authorization header:
// "AWS4-HMAC-SHA256 Credential=ID/DATE/REGION/SERVICE/aws4_request, SignedHeaders=a;b, Signature=hex".
func Parse(header string) (Authorization, error) {
	rest, ok := strings.CutPrefix(header, Algorithm+" ")
	if !ok {
		return Authorization{}, ErrNotSigV4
	}
	var a Authorization
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Authorization{}, fmt.Errorf("sigv4: malformed Authorization part %q", part)
		}
		switch k {
		case "Credential":
			scope := strings.Split(v, "/")
			if len(scope) != 5 || scope[4] != "aws4_request" || scope[0] == "" {
				return Authorization{}, fmt.Errorf("sigv4: malformed credential scope %q", v)
			}
			a.AccessKeyID, a.Date, a.Region, a.Service = scope[0], scope[1], scope[2], scope[3]
		case "SignedHeaders":
			a.SignedHeaders = strings.Split(v, ";")
		case "Signature":
			a.Signature = v
		}
	}
	if a.AccessKeyID == "" || len(a.SignedHeaders) == 0 || a.Signature == "" {
		return Authorization{}, fmt.Errorf("sigv4: Authorization lacks Credential, SignedHeaders or Signature")
	}
	return a, nil
}

// Verify checks r's signature: it signs a copy holding only r's signed
// headers, for each host in hosts (the host the client signed may differ
// from the one that received the request, behind a redirect), with the
// secret of the request's access key id, at the request's X-Amz-Date, and
// compares signatures in constant time. secret reports false for an
// unknown key id.
func Verify(r *http.Request, body []byte, secret func(accessKeyID string) (string, bool), hosts ...string) (Authorization, error) {
	a, err := Parse(r.Header.Get("Authorization"))
	if err != nil {
		return a, err
	}
	key, ok := secret(a.AccessKeyID)
	if !ok {
		return a, fmt.Errorf("sigv4: unknown access key id %q", a.AccessKeyID)
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return a, fmt.Errorf("sigv4: X-Amz-Date: %w", err)
	}
	if len(hosts) == 0 {
		hosts = []string{r.Host}
	}
	sum := sha256.Sum256(body)
	for _, host := range hosts {
		c, err := signedCopy(r, host, a.SignedHeaders)
		if err != nil {
			return a, err
		}
		creds := aws.Credentials{AccessKeyID: a.AccessKeyID, SecretAccessKey: key, SessionToken: r.Header.Get("X-Amz-Security-Token")}
		if err := v4.NewSigner().SignHTTP(r.Context(), creds, c, hex.EncodeToString(sum[:]), a.Service, a.Region, at); err != nil {
			return a, fmt.Errorf("sigv4: signing: %w", err)
		}
		want, err := Parse(c.Header.Get("Authorization"))
		if err == nil && hmac.Equal([]byte(want.Signature), []byte(a.Signature)) {
			return a, nil
		}
	}
	return a, errors.New("sigv4: the request signature we calculated does not match the signature you provided")
}

// signedCopy returns a request like r on host with only the headers r's
// signature covers.
func signedCopy(r *http.Request, host string, signed []string) (*http.Request, error) {
	u := url.URL{Scheme: "https", Host: host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	c, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("sigv4: %w", err)
	}
	for _, h := range signed {
		switch h {
		case "host":
		case "content-length":
			c.ContentLength = r.ContentLength
		default:
			if vs := r.Header.Values(h); len(vs) > 0 {
				c.Header[http.CanonicalHeaderKey(h)] = vs
			}
		}
	}
	return c, nil
}
