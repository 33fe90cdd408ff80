package replay

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadKeepsNoBytesOfTheFile: Load reads each cassette into a pooled
// buffer that the next Load overwrites, so a Player must keep nothing
// that points into the bytes it was loaded from. Every cassette of the
// suite (with and without a provenance header) and one only go-vcr's
// loader reads is loaded, its bytes overwritten, and the Player compared
// with one loaded from bytes nobody touched.
func TestLoadKeepsNoBytesOfTheFile(t *testing.T) {
	stream, err := os.ReadFile("testdata/stream.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// A comment after a value is outside parseCassette's layout.
	commented := bytes.Replace(stream, []byte("version: 2\n"), []byte("version: 2 # go-vcr's loader\n"), 1)
	if _, ok := parseCassette("commented", commented); ok {
		t.Fatal("the commented cassette is read by parseCassette; want one only go-vcr reads")
	}
	files := map[string][]byte{"testdata/stream": stream, "testdata/commented": commented}
	root := filepath.Join("..", "..", "cassettes")
	withProvenance := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if HasProvenance(data) {
			withProvenance++
		}
		files[strings.TrimSuffix(path, ".yaml")] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 || withProvenance == 0 {
		t.Fatalf("%d cassettes, %d with a provenance header, under %s; want the suite's", len(files), withProvenance, root)
	}
	for name, data := range files {
		reused := bytes.Clone(data)
		got, err := load(name, reused, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range reused {
			reused[i] = 'X'
		}
		want, err := load(name, bytes.Clone(data), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.interactions, want.interactions) || !reflect.DeepEqual(got.keys, want.keys) ||
			!reflect.DeepEqual(got.urls, want.urls) || !reflect.DeepEqual(got.prov, want.prov) {
			t.Fatalf("%s: the Player changed when the bytes it was loaded from were overwritten", name)
		}
	}
}
