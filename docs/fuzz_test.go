package docs

import (
	"strings"
	"testing"
)

// FuzzParsePage holds the Markdown reader to its promises on any input:
// it never panics, every block, link and code span it reports starts on
// a line of the input, and a block's text is made of the input's lines.
func FuzzParsePage(f *testing.F) {
	f.Add("# T\n\n```go\npackage x\n```\n[a](b.md#c) `x/y`\n")
	f.Add("   ```yaml fragment\n   a: 1\n```\n")
	f.Add("```\nunclosed\n")
	f.Add("``a ` b`` [x\ny](z)\n~~~~sh\n~~~\n~~~~\n")
	f.Add("## A\n## A\n### `b` (c)\n")
	f.Fuzz(func(t *testing.T, src string) {
		p := parsePage("f.md", src)
		n := strings.Count(src, "\n") + 1
		for _, b := range p.blocks {
			if b.line < 1 || b.line > n {
				t.Fatalf("block at line %d of %d", b.line, n)
			}
			for _, l := range strings.Split(strings.TrimSuffix(b.text, "\n"), "\n") {
				if l != "" && !strings.Contains(src, l) {
					t.Fatalf("block line %q is not in the input", l)
				}
			}
		}
		for _, s := range append(p.links, p.code...) {
			if s.line < 1 || s.line > n {
				t.Fatalf("span %q at line %d of %d", s.text, s.line, n)
			}
		}
	})
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"From Go: `conformtest.Run`":                                  "from-go-conformtestrun",
		"Importing recorded traffic (`record import`)":                "importing-recorded-traffic-record-import",
		"The stdio protocol (`protocol`, version `metis.adapter/v2`)": "the-stdio-protocol-protocol-version-metisadapterv2",
		"Real traffic and emulator traffic (`scenarios/real`)":        "real-traffic-and-emulator-traffic-scenariosreal",
		"Mutation testing (`make mutate`)":                            "mutation-testing-make-mutate",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
