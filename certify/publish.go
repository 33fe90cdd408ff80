package certify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/metis-llm/metis/internal/atomicfile"
)

// SuitesFile is where the published suite versions live, relative to the
// repository's root.
const SuitesFile = "certify/suites.json"

var versionRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]*$`)

// Publish publishes the suite of the checkout at root as version: it
// appends {version, hash, date, trees} to root's certify/suites.json,
// atomically, and returns the entry. trees are the git tree ids of the
// suite's directories (see PublishedSuite.Trees). The list only grows: a
// version already published, or a suite whose hash is, is refused, and
// the entries before are written back as they were. The metis built
// from the checkout afterwards names the suite by its version.
func Publish(root, version, date string, trees map[string]string) (PublishedSuite, error) {
	if !versionRE.MatchString(version) || version == Unpublished {
		return PublishedSuite{}, fmt.Errorf("certify: suite version %q: want letters, digits, '.', '+' or '-', and not %q", version, Unpublished)
	}
	file := filepath.Join(root, filepath.FromSlash(SuitesFile))
	data, err := os.ReadFile(file)
	if err != nil {
		return PublishedSuite{}, fmt.Errorf("certify: %w (publish from the repository's root, or name it with --suite)", err)
	}
	published, err := parsePublished(data)
	if err != nil {
		return PublishedSuite{}, err
	}
	hash, err := DirSuite(root).Hash()
	if err != nil {
		return PublishedSuite{}, err
	}
	for _, p := range published {
		switch {
		case p.Version == version:
			return PublishedSuite{}, fmt.Errorf("certify: suite version %s is published already (%s, %s); published versions never change", version, p.Hash, p.Date)
		case p.Hash == hash:
			return PublishedSuite{}, fmt.Errorf("certify: this suite (%s) is published already, as version %s", hash, p.Version)
		}
	}
	entry := PublishedSuite{Version: version, Hash: hash, Date: date, Trees: trees}
	var buf bytes.Buffer
	buf.WriteString("{\n  \"suites\": [")
	for i, p := range append(published, entry) {
		line, err := json.Marshal(p)
		if err != nil {
			return PublishedSuite{}, err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		buf.Write(line)
	}
	buf.WriteString("\n  ]\n}\n")
	if _, err := parsePublished(buf.Bytes()); err != nil {
		return PublishedSuite{}, err
	}
	if err := atomicfile.Write(file, buf.Bytes()); err != nil {
		return PublishedSuite{}, fmt.Errorf("certify: writing %s: %w", file, err)
	}
	return entry, nil
}
