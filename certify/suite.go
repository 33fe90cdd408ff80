package certify

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metis-llm/metis/cassettes"
	"github.com/metis-llm/metis/goldens"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/scenarios"
)

// A Suite is what an adapter is certified against: the scenario files,
// the cassettes they replay and the goldens their canonical output is
// compared with, each as a file system laid out as in the repository
// (scenarios/<id>.yaml, cassettes/<provider>/<id>.yaml,
// goldens/<id>/<provider>/<model-name>/).
type Suite struct {
	Scenarios fs.FS
	Cassettes fs.FS
	Goldens   fs.FS
}

// Builtin is the suite compiled into this metis: the scenarios,
// cassettes and goldens packages' embedded files. It needs no checkout.
func Builtin() Suite {
	return Suite{Scenarios: scenarios.FS, Cassettes: cassettes.FS, Goldens: goldens.FS}
}

// DirSuite is the suite in a checkout: root/scenarios, root/cassettes
// and root/goldens.
func DirSuite(root string) Suite {
	return Suite{
		Scenarios: os.DirFS(filepath.Join(root, "scenarios")),
		Cassettes: os.DirFS(filepath.Join(root, "cassettes")),
		Goldens:   os.DirFS(filepath.Join(root, "goldens")),
	}
}

// Load parses and returns every scenario of the suite. Errors name the
// file, line and column.
func (s Suite) Load() ([]*scenario.Scenario, error) {
	return scenario.LoadFS(s.Scenarios)
}

// Hash returns the suite's content hash, "sha256:<hex>": the SHA-256 of
// one line per file, "<sha256 of the content> <part>/<path>", sorted by
// path, over the three parts. Go source files (the embedding packages)
// are left out, so a checkout and the embedded suite hash alike.
func (s Suite) Hash() (string, error) {
	var lines []ManifestLine
	for _, part := range []struct {
		name string
		fsys fs.FS
	}{{"scenarios", s.Scenarios}, {"cassettes", s.Cassettes}, {"goldens", s.Goldens}} {
		if part.fsys == nil {
			return "", fmt.Errorf("certify: the suite has no %s", part.name)
		}
		err := fs.WalkDir(part.fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || path.Ext(p) == ".go" {
				return nil
			}
			data, err := fs.ReadFile(part.fsys, p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			lines = append(lines, ManifestLine{Path: part.name + "/" + p, SHA256: hex.EncodeToString(sum[:])})
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("certify: hashing the suite's %s: %w", part.name, err)
		}
	}
	return HashManifest(lines), nil
}

// ManifestLine is one file of a suite for HashManifest: its path
// ("scenarios/…", "cassettes/…" or "goldens/…") and the hex SHA-256 of
// its content.
type ManifestLine struct {
	Path, SHA256 string
}

// HashManifest returns the suite hash of these files (Suite.Hash's, for
// a suite held elsewhere, such as in a git tree). Go source files are
// left out; the order of lines does not matter.
func HashManifest(files []ManifestLine) string {
	lines := make([]string, 0, len(files))
	for _, f := range files {
		if path.Ext(f.Path) == ".go" {
			continue
		}
		lines = append(lines, f.SHA256+" "+f.Path)
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[65:], b[65:]) })
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n") + "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// SuiteInfo identifies a suite in a report: its content hash and, when
// that hash is a published suite version, the version's name.
type SuiteInfo struct {
	// Version is the published version whose hash this is, or
	// Unpublished.
	Version string `json:"version"`
	Hash    string `json:"hash"`
}

// Unpublished is the SuiteInfo.Version of a suite whose hash is not in
// the published list: an unreleased development suite (a checkout
// between releases) or a third party's own.
const Unpublished = "unpublished"

// String names the suite for people: "suite 1 (sha256:…)", or
// "unreleased (dev) suite sha256:…".
func (i SuiteInfo) String() string {
	if i.Version == Unpublished {
		return "unreleased (dev) suite " + i.Hash
	}
	return "suite " + i.Version + " (" + i.Hash + ")"
}

// Info returns the suite's hash and version.
func (s Suite) Info() (SuiteInfo, error) {
	h, err := s.Hash()
	if err != nil {
		return SuiteInfo{}, err
	}
	info := SuiteInfo{Version: Unpublished, Hash: h}
	for _, p := range Published() {
		if p.Hash == h {
			info.Version = p.Version
		}
	}
	return info, nil
}

// suitesJSON is the list of published suite versions.
//
//go:embed suites.json
var suitesJSON []byte

// PublishedSuite is one published suite version: a name for a content
// hash. Publishing a suite version means adding its entry to
// certify/suites.json; entries are never changed or removed, so a bundle
// certified against an old suite still verifies.
type PublishedSuite struct {
	Version string `json:"version"`
	Hash    string `json:"hash"`
	// Date is when it was published (YYYY-MM-DD).
	Date string `json:"date"`
	// Trees are the git tree ids of the suite's scenarios, cassettes and
	// goldens directories when it was published, by directory: the
	// suite's content, so that its hash can be recomputed from any clone
	// with the history (a test does).
	Trees map[string]string `json:"trees,omitempty"`
}

// Published returns the published suite versions, oldest first.
func Published() []PublishedSuite {
	out, err := parsePublished(suitesJSON)
	if err != nil {
		panic(err) // suites.json is checked by the tests
	}
	return out
}

func parsePublished(data []byte) ([]PublishedSuite, error) {
	var doc struct {
		Suites []PublishedSuite `json:"suites"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("certify: suites.json: %w", err)
	}
	seen := map[string]bool{}
	for i, p := range doc.Suites {
		if p.Version == "" || p.Version == Unpublished || seen[p.Version] {
			return nil, fmt.Errorf("certify: suites.json: suites[%d]: version %q is empty, reserved or repeated", i, p.Version)
		}
		seen[p.Version] = true
		if !validHash(p.Hash) {
			return nil, fmt.Errorf("certify: suites.json: suites[%d]: hash %q is not sha256:<64 hex digits>", i, p.Hash)
		}
	}
	return doc.Suites, nil
}

func validHash(h string) bool {
	hexPart, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}
