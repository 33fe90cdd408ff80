package certify

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestBuiltinSuiteHashesLikeTheCheckout(t *testing.T) {
	builtin, err := Builtin().Hash()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := DirSuite("..").Hash()
	if err != nil {
		t.Fatal(err)
	}
	if builtin != dir {
		t.Errorf("embedded suite hashes %s, the checkout %s", builtin, dir)
	}
	if !validHash(builtin) {
		t.Errorf("hash %q is not sha256:<hex>", builtin)
	}
}

func TestSuiteHashSeesEveryByte(t *testing.T) {
	base := func() Suite {
		return Suite{
			Scenarios: fstest.MapFS{"a/x.yaml": {Data: []byte("id: a/x")}, "scenarios.go": {Data: []byte("package scenarios")}},
			Cassettes: fstest.MapFS{"anthropic/a/x.yaml": {Data: []byte("interactions: []")}},
			Goldens:   fstest.MapFS{"a/x/anthropic/m/events.json": {Data: []byte("[]")}},
		}
	}
	want, err := base().Hash()
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Suite){
		"scenario byte":  func(s *Suite) { s.Scenarios.(fstest.MapFS)["a/x.yaml"].Data[0] = 'J' },
		"cassette added": func(s *Suite) { s.Cassettes.(fstest.MapFS)["openai/a/x.yaml"] = &fstest.MapFile{} },
		"golden renamed": func(s *Suite) {
			g := s.Goldens.(fstest.MapFS)
			g["a/x/anthropic/m/events2.json"] = g["a/x/anthropic/m/events.json"]
			delete(g, "a/x/anthropic/m/events.json")
		},
		"moved between parts": func(s *Suite) {
			s.Goldens.(fstest.MapFS)["anthropic/a/x.yaml"] = s.Cassettes.(fstest.MapFS)["anthropic/a/x.yaml"]
			delete(s.Cassettes.(fstest.MapFS), "anthropic/a/x.yaml")
		},
	} {
		s := base()
		change(&s)
		got, err := s.Hash()
		if err != nil {
			t.Fatal(err)
		}
		if got == want {
			t.Errorf("%s: the hash did not change", name)
		}
	}
	s := base()
	s.Scenarios.(fstest.MapFS)["scenarios.go"].Data = []byte("package changed")
	if got, _ := s.Hash(); got != want {
		t.Errorf("a Go file changed the hash; embedding packages are not suite content")
	}
}

func TestPublishedSuites(t *testing.T) {
	if _, err := parsePublished(suitesJSON); err != nil {
		t.Fatalf("the committed suites.json: %v", err)
	}
	good := "sha256:" + strings.Repeat("ab", 32)
	for name, tc := range map[string]struct{ doc, want string }{
		"unknown field": {`{"suites":[],"extra":1}`, "unknown field"},
		"bad hash":      {`{"suites":[{"version":"1","hash":"sha256:XY","date":"2026-01-01"}]}`, "is not sha256"},
		"upper hex":     {`{"suites":[{"version":"1","hash":"` + strings.ToUpper(good) + `","date":"2026-01-01"}]}`, "is not sha256"},
		"repeated":      {`{"suites":[{"version":"1","hash":"` + good + `"},{"version":"1","hash":"` + good + `"}]}`, "repeated"},
		"reserved":      {`{"suites":[{"version":"unpublished","hash":"` + good + `"}]}`, "reserved"},
	} {
		_, err := parsePublished([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tc.want)
		}
	}
}
