// Package secrets recognises credentials by their shape — provider API
// keys, cloud and forge tokens, JWTs, bearer tokens, private keys, and
// high-entropy values assigned to a key, token, secret or password — so
// that no error message, log entry, cassette, golden or report carries
// one. Find locates them; Redact replaces them; Scan finds them through
// any encoding (escapes, percent-encoding, base64); a Scrubber removes
// them from recorded bodies and URLs, reading each as the container it
// is.
package secrets

import (
	"bytes"
	"math"
	"regexp"
	"slices"
)

// Shape is one form a credential takes.
type Shape struct {
	// Kind names the credential in reports, e.g. "an Anthropic API key".
	Kind string
	re   *regexp.Regexp
	// group is the submatch holding the secret; 0 means the whole match.
	group int
	// bounded shapes, whose prefix is common in words (sk-, bearer), only
	// count where the prefix starts a word or follows an escape sequence
	// (\n, \u0022, %22, …); every other shape counts after any character.
	bounded bool
	// generic shapes only count values that look random, where no
	// allowlist (AllowedNames, AllowedValue) keeps them.
	generic bool
	// check, when set, must accept the secret.
	check func(secret []byte) bool
}

// Shapes are the recognised forms, most specific first.
var Shapes = []Shape{
	{Kind: "an Anthropic API key (sk-ant-…)", re: regexp.MustCompile(`sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_\-]{16,}`)},
	{Kind: "an OpenAI project, admin or service-account key", re: regexp.MustCompile(`sk-(?:proj|admin|svcacct|None)-[A-Za-z0-9_\-]{16,}`)},
	{Kind: "an OpenAI-style key (sk-…)", re: regexp.MustCompile(`sk-[A-Za-z0-9_\-]{20,}`), bounded: true},
	{Kind: "a Google API key (AIza…)", re: regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}`)},
	{Kind: "a Google OAuth access token (ya29.…)", re: regexp.MustCompile(`ya29\.[0-9A-Za-z_\-]{20,}`)},
	{Kind: "a Google OAuth client secret (GOCSPX-…)", re: regexp.MustCompile(`GOCSPX-[0-9A-Za-z_\-]{20,}`)},
	{Kind: "a Google OAuth refresh token (1//…)", re: regexp.MustCompile(`1//0[0-9A-Za-z_\-]{30,}`)},
	{Kind: "an AWS access key id", group: 1, re: regexp.MustCompile(`((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})(?:[^0-9A-Z]|$)`)},
	{Kind: "a GitHub token", re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}`)},
	{Kind: "a Slack token", re: regexp.MustCompile(`xox[abposr]-[A-Za-z0-9\-]{10,}`)},
	{Kind: "a JWT", re: regexp.MustCompile(`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
	{Kind: "a bearer token", re: regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._~+/\-]{16,}=*`), bounded: true},
	{Kind: "a private key", re: regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	{Kind: "an Azure shared access signature (sig=…)", group: 1,
		re: regexp.MustCompile(`(?i)(?:[?&;]|\\u0026|%26|%3f)sig=([A-Za-z0-9%+/_\-]{16,}=*)`)},
	{Kind: "an AWS secret access key", group: 1, check: awsSecret,
		re: regexp.MustCompile(`(?i)secret_?access_?key["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+]{40,})`)},
	{Kind: "a high-entropy key, token, secret or password value", generic: true, group: 2, re: credentialPosition},
}

// credentialPosition matches a value in a credential-named position: a
// JSON member, a YAML or header line (a YAML list item included), a query
// or form parameter, or an environment assignment whose name ends in
// key, token, secret, password, credential, authorization or signature.
var credentialPosition = regexp.MustCompile(`(?i)([A-Za-z0-9_.\-]*(?:key|token|secret|passw(?:or)?d|pwd|credential|authorization|sig|signature)s?)["']?[ \t]*[:=][ \t]*(?:\r?\n[ \t]*-[ \t]+)?["']?(?:(?:bearer|basic|token)[ \t]+)?([A-Za-z0-9_\-+/.=~%]{16,})`)

// AllowedNames are the credential-like names whose values are opaque ids
// the contract keeps, compared without case, '-', '_' and '.': thinking
// blocks' signatures, pagination tokens, client-chosen cache and
// idempotency keys. The generic shape leaves their values alone.
var AllowedNames = []string{
	"signature", "thoughtsignature", "nextpagetoken", "pagetoken", "nexttoken", "continuationtoken",
	"idempotencykey", "promptcachekey", "cachekey",
}

// allowedID matches the ids that look random and are not secrets: ULIDs,
// and provider ids with their prefixes (messages, tool calls, responses,
// reasoning items, requests, files, …), and SigV4 credential scopes
// (key id/date/region/service/aws4_request, whose key id the AWS shape
// judges).
var allowedID = regexp.MustCompile(`^(?:[0-9A-HJKMNP-TV-Z]{26}|[A-Za-z0-9]{2,32}/[A-Za-z0-9]{4,8}/[A-Za-z0-9\-]+/[A-Za-z0-9\-]+(?:/aws4_request)?|(?:msg|toolu|srvtoolu|call|fc|rs|resp|req|tu|chatcmpl|file|batch|run|thread|asst|ws|ctc|mcp|evt|item|gen)[_\-][A-Za-z0-9_\-]+)$`)

// AllowedValue reports whether v is an id the generic shape leaves alone
// (see allowedID), or the placeholder.
func AllowedValue(v []byte) bool {
	return allowedID.Match(v) || bytes.Contains(v, []byte(Placeholder))
}

// awsSecret accepts a 40-character run of base64 letters that mixes
// cases and digits at high entropy: an AWS secret access key. (Without
// its name before it, such a run is as likely a piece of a thinking
// signature or of encrypted reasoning, which the contract keeps.)
func awsSecret(v []byte) bool {
	if len(v) != 40 {
		return false
	}
	var lower, upper, digit bool
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return lower && upper && digit && entropy(v) >= 4.2
}

// Match is one credential found in a text.
type Match struct {
	Kind       string
	Start, End int // byte offsets of the secret itself
}

// Find returns the credentials in data, in order of position, without
// overlaps (the more specific shape wins).
func Find(data []byte) []Match { return findShapes(data, true) }

// findShapes is Find, with or without the generic shape.
func findShapes(data []byte, generic bool) []Match {
	var out []Match
	for _, s := range Shapes {
		if s.generic && !generic {
			continue
		}
		for _, loc := range s.re.FindAllSubmatchIndex(data, -1) {
			start, end := loc[2*s.group], loc[2*s.group+1]
			if start < 0 {
				continue
			}
			v := data[start:end]
			if s.bounded && !wordStart(data, loc[0]) ||
				s.check != nil && !s.check(v) ||
				s.generic && (allowedName(data[loc[2]:loc[3]]) || AllowedValue(v) || !random(v) || called(data, end)) {
				continue
			}
			if overlaps(out, start, end) {
				continue
			}
			out = append(out, Match{Kind: s.Kind, Start: start, End: end})
		}
	}
	slices.SortFunc(out, func(a, b Match) int { return a.Start - b.Start })
	return out
}

// called reports whether the value ending at data[end] is called, as
// code calls a function: p.token = oauth2.StaticTokenSource(…) assigns no
// secret.
func called(data []byte, end int) bool { return end < len(data) && data[end] == '(' }

// allowedName reports whether AllowedNames holds name.
func allowedName(name []byte) bool {
	return slices.Contains(AllowedNames, normalize(string(name)))
}

// wordStart reports whether data[i] starts a word: it is the first byte,
// follows a byte that is not a letter or digit, or follows an escape
// sequence (\n, \t, \r, \b, \f, \uXXXX, \xXX, %XX).
func wordStart(data []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := data[i-1]
	if !isAlnum(c) {
		return true
	}
	switch {
	case i >= 2 && data[i-2] == '\\' && bytes.IndexByte([]byte("nrtbf"), c) >= 0:
		return true
	case i >= 6 && data[i-6] == '\\' && data[i-5] == 'u' && isHex(data[i-4:i]):
		return true
	case i >= 4 && data[i-4] == '\\' && data[i-3] == 'x' && isHex(data[i-2:i]):
		return true
	case i >= 3 && data[i-3] == '%' && isHex(data[i-2:i]):
		return true
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func overlaps(ms []Match, start, end int) bool {
	for _, m := range ms {
		if start < m.End && m.Start < end {
			return true
		}
	}
	return false
}

// Redacted replaces a secret in Redact's output.
const Redacted = "[REDACTED]"

// Redact returns s with every credential Find sees replaced by Redacted.
// It returns s itself when there is none.
func Redact(s string) string {
	ms := Find([]byte(s))
	if len(ms) == 0 {
		return s
	}
	var b bytes.Buffer
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.Start])
		b.WriteString(Redacted)
		last = m.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// random reports whether v looks like a generated secret rather than a
// word, a path or a placeholder: letters and digits mixed, and at least
// 3.5 bits of entropy per character (3 for hexadecimal, whose alphabet is
// 16 letters: a 32-digit Azure key has about 3.7).
func random(v []byte) bool {
	var letters, digits, nonHex bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			letters = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters, nonHex = true, true
		default:
			nonHex = true
		}
	}
	if !letters || !digits {
		return false
	}
	if !nonHex {
		return entropy(v) >= 3.0
	}
	return entropy(v) >= 3.5
}

// entropy is v's Shannon entropy in bits per byte.
func entropy(v []byte) float64 {
	var counts [256]int
	for _, c := range v {
		counts[c]++
	}
	h := 0.0
	n := float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
