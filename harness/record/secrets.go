package record

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/metis-llm/metis/internal/secrets"
)

// Leak is a secret found where none may be.
type Leak struct {
	// File is the file it is in, when scanning files.
	File string
	// Line counts from 1.
	Line int
	// Kind says what was found: a configured key or a key shape.
	Kind string
	// Redacted is the start of the secret, enough to find it and no more.
	Redacted string
}

// String formats the leak as file:line: kind (redacted).
func (l Leak) String() string {
	loc := fmt.Sprintf("line %d", l.Line)
	if l.File != "" {
		loc = fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return fmt.Sprintf("%s: %s (%s)", loc, l.Kind, l.Redacted)
}

// ScanSecrets returns every occurrence in data of the given keys (those
// of at least 8 bytes) and of anything shaped like a credential, in the
// raw bytes and in every decoded view of them (secrets.Scan: escapes
// undone, percent-decoded, base64 blocks and payloads decoded), so that
// no encoding hides one. The shapes are internal/secrets': Anthropic,
// OpenAI project/admin/service-account and other sk-… keys, Google API
// keys, OAuth access tokens, client secrets and refresh tokens, AWS
// access key ids and secret keys, GitHub and Slack tokens, JWTs, bearer
// tokens, private keys, Azure SAS signatures, and high-entropy values in
// credential-named positions.
func ScanSecrets(data []byte, keys ...string) []Leak {
	var out []Leak
	for _, f := range secrets.Scan(data, keys...) {
		out = append(out, Leak{Line: f.Line, Kind: f.Kind, Redacted: redact(f.Secret)})
	}
	return out
}

// ScanDir scans every regular file under dir as ScanSecrets does. A
// missing dir has no leaks.
func ScanDir(dir string, keys ...string) ([]Leak, error) {
	var out []Leak
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == dir {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, l := range ScanSecrets(data, keys...) {
			l.File = path
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// LeakError is Save's failure when a secret survived scrubbing.
type LeakError struct {
	Path  string
	Leaks []Leak
}

func (e *LeakError) Error() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "record: SECRET IN CASSETTE %s: %d secret(s) survived scrubbing; nothing was written", e.Path, len(e.Leaks))
	for _, l := range e.Leaks {
		b.WriteString("\n\t")
		b.WriteString(l.String())
	}
	return b.String()
}

// redact keeps the first four bytes of a secret (enough to tell which key
// it is) and hides the rest.
func redact(s string) string {
	if len(s) <= 4 {
		return "…"
	}
	return s[:4] + "…"
}
