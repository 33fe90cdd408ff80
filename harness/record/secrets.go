package record

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// minKeyLen is the shortest configured key the scan looks for; shorter
// values would match by chance.
const minKeyLen = 8

// keyShapes are the forms provider keys take, whatever their value.
var keyShapes = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"an OpenAI or Anthropic key (sk-…)", regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{20,}`)},
	{"a Google API key (AIza…)", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`)},
	{"a bearer token", regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{16,}=*`)},
}

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
// of at least 8 bytes) and of anything shaped like a provider key: sk-…
// and sk-ant-… keys, Google AIza… keys, and bearer tokens.
func ScanSecrets(data []byte, keys ...string) []Leak {
	var out []Leak
	for _, k := range keys {
		if len(k) < minKeyLen {
			continue
		}
		for off := 0; ; {
			i := bytes.Index(data[off:], []byte(k))
			if i < 0 {
				break
			}
			out = append(out, Leak{Line: lineOf(data, off+i), Kind: "a configured API key", Redacted: redact(k)})
			off += i + len(k)
		}
	}
	for _, s := range keyShapes {
		for _, loc := range s.re.FindAllIndex(data, -1) {
			out = append(out, Leak{Line: lineOf(data, loc[0]), Kind: s.kind, Redacted: redact(string(data[loc[0]:loc[1]]))})
		}
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

func lineOf(data []byte, off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }

// redact keeps the first four bytes of a secret (enough to tell which key
// it is) and hides the rest.
func redact(s string) string {
	if len(s) <= 4 {
		return "…"
	}
	return s[:4] + "…"
}
