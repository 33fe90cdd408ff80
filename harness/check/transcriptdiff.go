package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/metis-llm/metis/harness/internal/jsonwalk"
)

// contractFieldsPrefix starts the first line of a contract transcript
// diff (ContractGoldenDiff): the paths of the contract fields that
// differ, so that a run's one-line reason says what differs.
const contractFieldsPrefix = "fields: "

// maxDiffFields bounds how many differing fields a summary names.
const maxDiffFields = 4

// TranscriptFieldDiffs returns the fields in which two transcripts (JSON
// lists of messages) differ, one entry per leaf, in document order with
// object keys sorted: `messages[1].metadata.served_model: want
// "claude-sonnet-4-6", got (absent)`. A field present on one side only
// is "(absent)" on the other; an object or list absent on one side is
// named once, not field by field. Invalid JSON gives nil.
func TranscriptFieldDiffs(want, got []byte) []string {
	var out []string
	for _, d := range fieldDiffs(want, got) {
		out = append(out, d.String())
	}
	return out
}

// fieldDiff is one differing field: its path, and each side rendered.
type fieldDiff struct {
	path, want, got string
}

func (d fieldDiff) String() string { return d.path + ": want " + d.want + ", got " + d.got }

func fieldDiffs(want, got []byte) []fieldDiff {
	w, errW := decodeNumbers(want)
	g, errG := decodeNumbers(got)
	if errW != nil || errG != nil {
		return nil
	}
	var out []fieldDiff
	for d := range jsonwalk.Diffs("messages", w, g) {
		out = append(out, fieldDiff{d.Path, diffValue(d.A, d.HasA), diffValue(d.B, d.HasB)})
	}
	return out
}

func decodeNumbers(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return []any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// diffValue renders one side of a differing field, short.
func diffValue(v any, present bool) string {
	switch v := v.(type) {
	case nil:
		if !present {
			return "(absent)"
		}
		return "null"
	case map[string]any:
		return fmt.Sprintf("{…%d field(s)}", len(v))
	case []any:
		return fmt.Sprintf("[…%d item(s)]", len(v))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "…" + string(r[len(r)-1])
	}
	return s
}

// contractFieldsLine is the first line of a contract transcript diff:
// the differing fields, at most maxDiffFields of them, the same
// difference in several messages named once with the messages' indexes
// (messages[1,3].metadata.served_model: …).
func contractFieldsLine(diffs []fieldDiff) string {
	if len(diffs) == 0 {
		return ""
	}
	type group struct {
		rest, want, got string
		msgs            []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, d := range diffs {
		msg, rest := "", d.path
		if m := messageIndex.FindStringSubmatch(d.path); m != nil {
			msg, rest = m[1], d.path[len(m[0]):]
		}
		key := rest + "\x00" + d.want + "\x00" + d.got
		g := byKey[key]
		if g == nil || msg == "" {
			g = &group{rest: rest, want: d.want, got: d.got}
			groups = append(groups, g)
			if msg != "" {
				byKey[key] = g
			}
		}
		if msg != "" {
			g.msgs = append(g.msgs, msg)
		}
	}
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		path := g.rest
		if len(g.msgs) > 0 {
			path = "messages[" + strings.Join(g.msgs, ",") + "]" + g.rest
		}
		parts = append(parts, fieldDiff{path, g.want, g.got}.String())
	}
	shown := parts
	if len(shown) > maxDiffFields {
		shown = shown[:maxDiffFields]
	}
	s := contractFieldsPrefix + strings.Join(shown, "; ")
	if n := len(parts) - len(shown); n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}

// messageIndex matches the message a field path starts in.
var messageIndex = regexp.MustCompile(`^messages\[(\d+)\]`)

// ContractDiffSummary returns the field line a contract transcript diff
// starts with, if it has one.
func ContractDiffSummary(diff string) (string, bool) {
	line, _, _ := strings.Cut(diff, "\n")
	if !strings.HasPrefix(line, contractFieldsPrefix) {
		return "", false
	}
	return strings.TrimPrefix(line, contractFieldsPrefix), true
}
