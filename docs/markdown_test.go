package docs

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// page is one Markdown file as the docs tests read it: its fenced code
// blocks, its links, its inline code spans and its headings' anchors.
type page struct {
	file    string // repository-relative, slash-separated
	blocks  []block
	links   []span
	code    []span          // inline code spans outside fenced blocks
	anchors map[string]bool // GitHub's heading slugs
}

// block is one fenced code block.
type block struct {
	file string
	line int    // the line of the opening fence, 1-based
	lang string // the info string's first word: go, yaml, sh, json, or ""
	kind string // the info string's second word, such as "fragment"
	text string // the content, the fence's indentation removed
}

// where names the block as file:line.
func (b block) where() string { return b.file + ":" + strconv.Itoa(b.line) }

// span is a link target or an inline code span and the line it starts on.
type span struct {
	line int
	text string
}

var (
	fenceRE  = regexp.MustCompile("^( *)(```+|~~~+)\\s*(.*)$")
	linkRE   = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	inlineRE = regexp.MustCompile("`+")
)

// parsePage reads a Markdown file's blocks, links, code spans and
// headings. It is a small reader of the CommonMark subset the docs use:
// fenced blocks (``` or ~~~, indented or not), inline links and ATX
// headings. An unclosed fence runs to the end of the file, as in
// CommonMark.
func parsePage(file, src string) page {
	p := page{file: file, anchors: map[string]bool{}}
	lines := strings.Split(src, "\n")
	prose := make([]string, len(lines)) // the lines outside fenced blocks, blank inside them
	slugs := map[string]int{}
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			prose[i] = lines[i]
			if h, ok := heading(lines[i]); ok {
				s := slug(h)
				if n := slugs[s]; n > 0 {
					p.anchors[s+"-"+strconv.Itoa(n)] = true
				} else {
					p.anchors[s] = true
				}
				slugs[s]++
			}
			continue
		}
		indent, fence, info := len(m[1]), m[2], strings.Fields(m[3])
		b := block{file: file, line: i + 1}
		if len(info) > 0 {
			b.lang = info[0]
		}
		if len(info) > 1 {
			b.kind = info[1]
		}
		var body []string
		for i++; i < len(lines); i++ {
			t := strings.TrimLeft(lines[i], " ")
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				break
			}
			body = append(body, dedent(lines[i], indent))
		}
		b.text = strings.Join(body, "\n")
		if len(body) > 0 {
			b.text += "\n"
		}
		p.blocks = append(p.blocks, b)
	}
	text := strings.Join(prose, "\n")
	lineAt := lineIndex(text)
	// Inline code first: a link inside a code span is not a link.
	masked := []byte(text)
	for _, loc := range codeSpans(text) {
		p.code = append(p.code, span{line: lineAt(loc[0]), text: strings.Join(strings.Fields(text[loc[2]:loc[3]]), " ")})
		for j := loc[0]; j < loc[1]; j++ {
			if masked[j] != '\n' {
				masked[j] = ' '
			}
		}
	}
	for _, m := range linkRE.FindAllSubmatchIndex(masked, -1) {
		p.links = append(p.links, span{line: lineAt(m[0]), text: text[m[4]:m[5]]})
	}
	return p
}

// codeSpans returns, for each inline code span of text, its start and
// end and the start and end of its content: a run of n backticks up to
// the next run of exactly n.
func codeSpans(text string) [][4]int {
	var out [][4]int
	runs := inlineRE.FindAllStringIndex(text, -1)
	for i := 0; i < len(runs); i++ {
		n := runs[i][1] - runs[i][0]
		for j := i + 1; j < len(runs); j++ {
			if runs[j][1]-runs[j][0] == n {
				out = append(out, [4]int{runs[i][0], runs[j][1], runs[i][1], runs[j][0]})
				i = j
				break
			}
		}
	}
	return out
}

// lineIndex returns a function giving the 1-based line of a byte offset.
func lineIndex(text string) func(int) int {
	var starts []int
	for i, c := range text {
		if c == '\n' {
			starts = append(starts, i)
		}
	}
	return func(off int) int {
		n := 1
		for _, s := range starts {
			if s >= off {
				break
			}
			n++
		}
		return n
	}
}

// dedent removes up to n leading spaces.
func dedent(s string, n int) string {
	for n > 0 && strings.HasPrefix(s, " ") {
		s, n = s[1:], n-1
	}
	return s
}

// heading returns an ATX heading's text.
func heading(line string) (string, bool) {
	t := strings.TrimLeft(line, "#")
	if t == line || len(line)-len(t) > 6 || (t != "" && t[0] != ' ') {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t), "#")), true
}

// slug is GitHub's anchor for a heading: lower case, letters, digits,
// spaces, hyphens and underscores kept, spaces made hyphens.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
