package secrets

import (
	"bytes"
	"regexp"
	"strings"
)

// Placeholder replaces a secret value inside data that must keep its
// syntax (a JSON string, a URL query value): ScrubFields and
// ReplaceValues write it.
const Placeholder = "REDACTED"

// fieldNames are the names of fields that hold credentials, compared
// without case, '-' and '_'. Plain "token" and "key" are not among them:
// log-probability tokens and map keys are ordinary data.
var fieldNames = map[string]bool{
	"apikey": true, "xapikey": true, "xgoogapikey": true, "apisecret": true,
	"accesstoken": true, "refreshtoken": true, "idtoken": true, "authtoken": true,
	"bearertoken": true, "sessiontoken": true, "securitytoken": true,
	"clientsecret": true, "secret": true, "secretkey": true, "secretaccesskey": true,
	"awssecretaccesskey": true, "privatekey": true, "password": true, "passwd": true,
	"authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true,
	"assertion": true, "clientassertion": true, "codeverifier": true, "subjecttoken": true,
	"actortoken": true, "xamzsecuritytoken": true, "awssessiontoken": true,
}

// paramNames are the names that hold credentials in a query string, a
// form-encoded body or a multipart form, besides fieldNames: there
// "key", "code", "token" and a signature are credentials (an API key, an
// OAuth authorization code, an Azure SAS or a presigned URL's
// signature), while in JSON they are ordinary data (a map key, an error
// code, a log-probability token, a thinking block's signature).
var paramNames = map[string]bool{
	"key": true, "code": true, "token": true, "sig": true, "signature": true, "pass": true, "pwd": true,
	"xamzsignature": true, "xamzcredential": true, "xgoogsignature": true, "xgoogcredential": true,
	"subscriptionkey": true, "ocpapimsubscriptionkey": true, "apipassword": true, "otp": true,
}

// IsSecretParam reports whether a query parameter, form field or
// multipart part of this name holds a credential: every name
// IsSecretField knows, and key, code, token, sig, signature and the
// signing parameters of presigned URLs (X-Amz-Signature, …).
func IsSecretParam(name string) bool {
	return IsSecretField(name) || paramNames[normalize(name)]
}

// IsSecretHeader reports whether a header of this name may carry a
// credential, so that its value is removed wherever else it appears:
// every name IsSecretParam knows, and any name that mentions a key,
// token, secret, password, credential, signature, cookie or auth
// (X-Api-Key, Api-Key, X-Auth-Token, X-Amz-Security-Token, …).
func IsSecretHeader(name string) bool {
	if IsSecretParam(name) {
		return true
	}
	n := normalize(name)
	for _, w := range []string{"key", "token", "secret", "passw", "credential", "signature", "cookie", "auth"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// normalize lowercases name and drops '-', '_' and '.'.
func normalize(name string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(name))
}

// IsSecretField reports whether a field, header or parameter of this name
// holds a credential (api_key, x-api-key, access_token, client_secret,
// password, authorization, …).
func IsSecretField(name string) bool {
	// The longest name in fieldNames has 18 letters: a longer name
	// without separators cannot be one, and an ASCII name is normalized
	// here without allocating.
	var buf [32]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_':
			continue
		case c >= 0x80:
			return fieldNames[strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))]
		case n == len(buf):
			return false
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return fieldNames[string(buf[:n])]
}

// stringField matches a JSON member whose value is a string, and the same
// inside a JSON string (quotes escaped), where a tool's arguments travel.
var (
	stringField  = regexp.MustCompile(`"([A-Za-z0-9_\-]{1,64})"\s*:\s*"((?:[^"\\]|\\.)*)"`)
	escapedField = regexp.MustCompile(`\\"([A-Za-z0-9_\-]{1,64})\\"\s*:\s*\\"((?:[^"\\]|\\\\\\"|\\\\\\\\|\\\\|\\[^"\\])*)\\"`)
)

// ScrubFields replaces with Placeholder the string value of every member
// named as IsSecretField says, anywhere in data: JSON bodies, the JSON of
// server-sent events, and JSON inside JSON strings. The result is as
// valid as data was. It returns data itself when nothing changed.
func ScrubFields(data []byte) []byte {
	out := data
	for _, re := range []*regexp.Regexp{stringField, escapedField} {
		locs := re.FindAllSubmatchIndex(out, -1)
		if len(locs) == 0 {
			continue
		}
		var b bytes.Buffer
		last := 0
		for _, loc := range locs {
			name := out[loc[2]:loc[3]]
			vs, ve := loc[4], loc[5]
			if !IsSecretField(string(name)) || string(out[vs:ve]) == Placeholder {
				continue
			}
			b.Write(out[last:vs])
			b.WriteString(Placeholder)
			last = ve
		}
		if last == 0 {
			continue
		}
		b.Write(out[last:])
		out = b.Bytes()
	}
	return out
}

// ReplaceValues replaces every occurrence in data of each of values (those
// of at least MinValueLen bytes; shorter ones would match by chance) with
// Placeholder. It returns data itself when nothing changed.
func ReplaceValues(data []byte, values ...string) []byte {
	out := data
	for _, v := range values {
		if len(v) < MinValueLen || !bytes.Contains(out, []byte(v)) {
			continue
		}
		out = bytes.ReplaceAll(out, []byte(v), []byte(Placeholder))
	}
	return out
}

// MinValueLen is the shortest configured secret ReplaceValues and the
// scanners look for.
const MinValueLen = 8
