package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"testing/fstest"
)

// HashManifest is the SHA-256 of "<sha256> <path>" lines sorted by path,
// each ending in a newline, Go files left out, whatever order the lines
// come in: computed here from that definition.
func TestHashManifestIsItsDefinition(t *testing.T) {
	a := ManifestLine{Path: "scenarios/a.yaml", SHA256: strings.Repeat("1", 64)}
	b := ManifestLine{Path: "cassettes/b.yaml", SHA256: strings.Repeat("0", 64)}
	c := ManifestLine{Path: "goldens/c.json", SHA256: strings.Repeat("f", 64)}
	goFile := ManifestLine{Path: "scenarios/scenarios.go", SHA256: strings.Repeat("2", 64)}
	// Sorted by path: cassettes/b, goldens/c, scenarios/a (the hash
	// digits would sort them the other way round).
	text := b.SHA256 + " " + b.Path + "\n" + c.SHA256 + " " + c.Path + "\n" + a.SHA256 + " " + a.Path + "\n"
	sum := sha256.Sum256([]byte(text))
	want := "sha256:" + hex.EncodeToString(sum[:])
	for _, order := range [][]ManifestLine{{a, b, c}, {c, goFile, b, a}, {b, c, a, goFile}} {
		if got := HashManifest(order); got != want {
			t.Errorf("HashManifest(%v) = %s, want %s", order, got, want)
		}
	}
	empty := sha256.Sum256([]byte("\n"))
	if got := HashManifest(nil); got != "sha256:"+hex.EncodeToString(empty[:]) {
		t.Errorf("HashManifest(nil) = %s", got)
	}
}

// A suite missing a part has no hash; a suite whose hash is in no
// published entry is unpublished, and each kind names itself.
func TestSuiteInfo(t *testing.T) {
	full := Suite{Scenarios: fstest.MapFS{"a.yaml": {Data: []byte("id: a")}}, Cassettes: fstest.MapFS{}, Goldens: fstest.MapFS{}}
	for _, part := range []string{"scenarios", "cassettes", "goldens"} {
		s := full
		switch part {
		case "scenarios":
			s.Scenarios = nil
		case "cassettes":
			s.Cassettes = nil
		case "goldens":
			s.Goldens = nil
		}
		if _, err := s.Info(); err == nil || err.Error() != "certify: the suite has no "+part {
			t.Errorf("without %s: err %v", part, err)
		}
	}
	info, err := full.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != Unpublished || !validHash(info.Hash) {
		t.Errorf("Info() = %+v, want an unpublished suite with its hash", info)
	}
	if got, want := info.String(), "unreleased (dev) suite "+info.Hash; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (SuiteInfo{Version: "3", Hash: "sha256:ab"}).String(); got != "suite 3 (sha256:ab)" {
		t.Errorf("String() = %q", got)
	}
	for _, p := range Published() {
		if !validHash(p.Hash) || p.Version == "" {
			t.Errorf("published entry %+v", p)
		}
	}
}

func TestValidHash(t *testing.T) {
	hex64 := strings.Repeat("0a", 32)
	for h, want := range map[string]bool{
		"sha256:" + hex64:             true,
		"sha256:" + hex64[:63]:        false,
		"sha256:" + hex64 + "0":       false,
		"sha1:" + hex64:               false,
		hex64:                         false,
		"sha256:" + hex64[:62] + "zz": false,
	} {
		if got := validHash(h); got != want {
			t.Errorf("validHash(%q) = %v, want %v", h, got, want)
		}
	}
}
