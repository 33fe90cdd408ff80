package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	yaml "go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// cassetteFiles returns every go-vcr cassette in the repository.
func cassetteFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bench" || d.Name() == "compat") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(data), "\ninteractions:") {
				out = append(out, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goVCR loads data as go-vcr does.
func goVCR(name string, data []byte) (*cassette.Cassette, error) {
	return cassette.LoadWithFS(name, fileData{name + ".yaml", data})
}

func diffCassettes(want, got *cassette.Cassette) string {
	return cmp.Diff(want.Interactions, got.Interactions, cmpopts.IgnoreUnexported(cassette.Interaction{})) +
		cmp.Diff(want.Version, got.Version)
}

// TestParseCassetteMatchesGoVCR checks the fast reader against go-vcr on
// every cassette in the repository, and that every suite cassette takes
// the fast path.
func TestParseCassetteMatchesGoVCR(t *testing.T) {
	files := cassetteFiles(t)
	suite := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(path, ".yaml")
		got, ok := parseCassette(name, data)
		want, err := goVCR(name, data)
		inSuite := strings.HasPrefix(filepath.ToSlash(path), "../../cassettes/")
		if inSuite {
			suite++
			if !ok {
				t.Errorf("%s: the fast reader declines a suite cassette", path)
				continue
			}
		}
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: the fast reader accepts what go-vcr refuses (%v)", path, err)
			continue
		}
		if d := diffCassettes(want, got); d != "" {
			t.Errorf("%s: the fast reader differs from go-vcr (-go-vcr +fast):\n%s", path, d)
		}
	}
	if suite < 50 {
		t.Fatalf("only %d suite cassettes found", suite)
	}
}

// FuzzParseCassette holds the fast reader to go-vcr's result on any
// input it accepts.
func FuzzParseCassette(f *testing.F) {
	for _, seed := range cassetteSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := parseCassette("fuzz", data)
		if !ok {
			return
		}
		want, err := goVCR("fuzz", data)
		if err != nil {
			t.Fatalf("the fast reader accepts what go-vcr refuses (%v):\n%s", err, data)
		}
		if d := diffCassettes(want, got); d != "" {
			t.Fatalf("the fast reader differs from go-vcr (-go-vcr +fast):\n%s\n%s", d, data)
		}
	})
}

// FuzzCassetteRoundTrip marshals interactions holding the fuzzed strings
// with go-vcr's YAML library, as the recorder writes them, and checks that
// the fast reader either declines the file or reads back what was written.
func FuzzCassetteRoundTrip(f *testing.F) {
	for _, s := range []string{"", "plain", "200 OK", "2023-06-01", "null", "true", "a: b", "x #y", " lead", "trail ",
		"line\nbreaks\n\n", "event: a\ndata: {\"x\":1}\n\n", "tab\there", "quote'\"", "ünïcode", "\x00\x1b", "- item", "|", "0s", "1.5"} {
		f.Add(s, s+"\n")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		c := cassette.New("fuzz")
		c.AddInteraction(&cassette.Interaction{
			Request: cassette.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: int64(len(a)), Host: a, Body: a,
				Headers: map[string][]string{"Content-Type": {b}, "X-A": {a, b}}, URL: "https://example.com/" + a, Method: "POST"},
			Response: cassette.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: -1, Body: b,
				Headers: map[string][]string{"Content-Type": {a}}, Status: b, Code: 200, Duration: time.Duration(len(b)) * time.Millisecond,
				TransferEncoding: []string{"chunked"}},
		})
		data, err := yaml.Marshal(c)
		if err != nil {
			t.Skip()
		}
		data = append([]byte("# metis cassette provenance\n# source: emulator\n---\n"), data...)
		got, ok := parseCassette("fuzz", data)
		want, err := goVCR("fuzz", data)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("the fast reader accepts what go-vcr refuses (%v):\n%s", err, data)
		}
		if d := diffCassettes(want, got); d != "" {
			t.Fatalf("the fast reader differs from go-vcr (-go-vcr +fast):\n%s\n%s", d, data)
		}
	})
}

func cassetteSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, path := range []string{
		"../../cassettes/anthropic/streaming/equivalence.yaml",
		"../../cassettes/openai/tools/single-round-trip@gpt-5.yaml",
		"../../cassettes/gemini/real/gemini/stream-thought-parts.yaml",
		"testdata/stream.yaml",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}
