package check

import (
	"strings"
	"testing"
)

// TestTranscriptFieldDiffs: each differing contract field is named with
// both sides; a subtree missing on one side is named once.
func TestTranscriptFieldDiffs(t *testing.T) {
	const base = `[{"id":"msg_1","content":[{"type":"text","text":"hi"}],"metadata":{}},
 {"id":"msg_2","content":[{"type":"text","text":"Hello there."}],"metadata":{"served_model":"claude-sonnet-4-6","status":"complete","usage":{"input_tokens":21}}}]`
	for _, tt := range []struct {
		name, from, to string
		want           []string
	}{
		{"same", "", "", nil},
		{"served model lost", `"served_model":"claude-sonnet-4-6",`, ``,
			[]string{`messages[1].metadata.served_model: want "claude-sonnet-4-6", got (absent)`}},
		{"text and status", `"Hello there."`, `"Hi."`,
			[]string{`messages[1].content[0].text: want "Hello there.", got "Hi."`}},
		{"number", `"input_tokens":21`, `"input_tokens":22`,
			[]string{`messages[1].metadata.usage.input_tokens: want 21, got 22`}},
		{"extra block", `"text":"Hello there."}]`, `"text":"Hello there."},{"type":"text","text":"More."}]`,
			[]string{`messages[1].content[1]: want (absent), got {…2 field(s)}`}},
		{"usage gone", `,"usage":{"input_tokens":21}`, ``,
			[]string{`messages[1].metadata.usage: want {…1 field(s)}, got (absent)`}},
		{"type changes", `"metadata":{}`, `"metadata":[]`,
			[]string{`messages[0].metadata: want {…0 field(s)}, got […0 item(s)]`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Replace(base, tt.from, tt.to, 1)
			if tt.from != "" && got == base {
				t.Fatalf("the edit changed nothing")
			}
			fields := TranscriptFieldDiffs([]byte(base), []byte(got))
			if strings.Join(fields, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(fields, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	if TranscriptFieldDiffs([]byte(`[`), []byte(`[]`)) != nil {
		t.Error("invalid JSON: want nil")
	}
	long := strings.Repeat("x", 200)
	fields := TranscriptFieldDiffs([]byte(`[{"t":"`+long+`"}]`), []byte(`[{"t":"y"}]`))
	if len(fields) != 1 || len(fields[0]) > 120 {
		t.Errorf("a long value is not shortened: %q", fields)
	}
}

// TestContractGoldenDiffNamesFields: the diff's first line names the
// fields, at most maxDiffFields of them, and ContractDiffSummary reads it.
func TestContractGoldenDiffNamesFields(t *testing.T) {
	want := []byte(`[{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}]`)
	got := []byte(`[{"a":0,"b":0,"c":0,"d":0,"e":0,"f":6}]`)
	diff, err := ContractGoldenDiff(want, got)
	if err != nil {
		t.Fatal(err)
	}
	summary, ok := ContractDiffSummary(diff)
	if !ok {
		t.Fatalf("no field line in the diff:\n%s", diff)
	}
	const wantSummary = "messages[0].a: want 1, got 0; messages[0].b: want 2, got 0; messages[0].c: want 3, got 0; messages[0].d: want 4, got 0; and 1 more"
	if summary != wantSummary {
		t.Errorf("summary %q,\nwant %q", summary, wantSummary)
	}
	if !strings.Contains(diff, "-    \"a\": 1,") {
		t.Errorf("the line diff is gone:\n%s", diff)
	}
	if d, _ := ContractGoldenDiff(want, []byte("[\n  {\n    \"a\": 1,\n    \"b\": 2,\n    \"c\": 3,\n    \"d\": 4,\n    \"e\": 5,\n    \"f\": 6\n  }\n]\n")); d != "" {
		t.Errorf("equal projections differ:\n%s", d)
	}
	// The same difference in several messages is named once.
	want = []byte(`[{"m":"x"},{"m":"x"},{"m":"x","n":1}]`)
	got = []byte(`[{},{},{"n":2}]`)
	diff, err = ContractGoldenDiff(want, got)
	if err != nil {
		t.Fatal(err)
	}
	summary, _ = ContractDiffSummary(diff)
	const collapsed = `messages[0,1,2].m: want "x", got (absent); messages[2].n: want 1, got 2`
	if summary != collapsed {
		t.Errorf("summary %q,\nwant %q", summary, collapsed)
	}
	if _, ok := ContractDiffSummary("-a\n+b\n"); ok {
		t.Error("a plain diff has a field line")
	}
}

func FuzzTranscriptFieldDiffs(f *testing.F) {
	f.Add([]byte(`[{"a":1}]`), []byte(`[{"a":[1,{"b":null}]}]`))
	f.Add([]byte(`null`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if d := TranscriptFieldDiffs(a, a); len(d) != 0 {
			if _, err := decodeNumbers(a); err == nil {
				t.Fatalf("a document differs from itself: %q", d)
			}
		}
		_ = TranscriptFieldDiffs(a, b)
	})
}
