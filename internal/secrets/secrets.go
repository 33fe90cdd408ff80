// Package secrets recognises credentials by their shape — provider API
// keys, cloud and forge tokens, JWTs, bearer tokens, private keys, and
// high-entropy values assigned to a key, token, secret or password — so
// that no error message, log entry, cassette, golden or report carries
// one. Find locates them; Redact replaces them.
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
	// generic shapes only count values that look random.
	generic bool
}

// Shapes are the recognised forms, most specific first.
var Shapes = []Shape{
	{Kind: "an Anthropic API key (sk-ant-…)", re: regexp.MustCompile(`\bsk-ant-[a-z]+[0-9]*-[A-Za-z0-9_\-]{16,}`)},
	{Kind: "an OpenAI project, admin or service-account key", re: regexp.MustCompile(`\bsk-(?:proj|admin|svcacct|None)-[A-Za-z0-9_\-]{16,}`)},
	{Kind: "an OpenAI-style key (sk-…)", re: regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{20,}`)},
	{Kind: "a Google API key (AIza…)", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`)},
	{Kind: "a Google OAuth access token (ya29.…)", re: regexp.MustCompile(`\bya29\.[0-9A-Za-z_\-]{20,}`)},
	{Kind: "an AWS access key id", re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`)},
	{Kind: "a GitHub token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{Kind: "a Slack token", re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`)},
	{Kind: "a JWT", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
	{Kind: "a bearer token", re: regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{16,}=*`)},
	{Kind: "a private key", re: regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	{Kind: "a high-entropy key, token, secret or password value", generic: true, group: 1,
		re: regexp.MustCompile(`(?i)[a-z0-9_\-]*(?:key|token|secret|passw(?:or)?d|credential)s?["']?\s*[:=]\s*["']([A-Za-z0-9_\-+/.=~]{20,})["']`)},
	{Kind: "a high-entropy key, token, secret or password value", generic: true, group: 1,
		re: regexp.MustCompile(`(?m)^[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)[ \t]*=[ \t]*([A-Za-z0-9_\-+/.=~]{20,})[ \t]*$`)},
}

// Match is one credential found in a text.
type Match struct {
	Kind       string
	Start, End int // byte offsets of the secret itself
}

// Find returns the credentials in data, in order of position, without
// overlaps (the more specific shape wins).
func Find(data []byte) []Match {
	var out []Match
	for _, s := range Shapes {
		for _, loc := range s.re.FindAllSubmatchIndex(data, -1) {
			start, end := loc[2*s.group], loc[2*s.group+1]
			if start < 0 {
				continue
			}
			if s.generic && !random(data[start:end]) {
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
// 3.5 bits of entropy per character.
func random(v []byte) bool {
	var letters, digits bool
	var counts [256]int
	for _, c := range v {
		counts[c]++
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters = true
		}
	}
	if !letters || !digits {
		return false
	}
	h := 0.0
	n := float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h >= 3.5
}
