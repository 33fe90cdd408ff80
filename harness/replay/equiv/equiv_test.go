package equiv_test

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/metis-llm/metis/harness/replay/equiv"
)

// testCase is one pair of requests in testdata: the recorded one (want)
// and the one an adapter sent (got), and, for a pair that differs, the
// fields Compare must name.
type testCase struct {
	Name       string            `json:"name"`
	Format     equiv.Format      `json:"format"`
	LimitSet   bool              `json:"limit_set"`
	WantPath   string            `json:"want_path"`
	GotPath    string            `json:"got_path"`
	WantHeader map[string]string `json:"want_header"`
	GotHeader  map[string]string `json:"got_header"`
	Want       json.RawMessage   `json:"want"`
	Got        json.RawMessage   `json:"got"`
	Fields     []string          `json:"fields"`
	// OneWay marks an equivalence that holds in one direction only (an
	// extra anthropic-beta flag is accepted, a missing one is not).
	OneWay bool `json:"one_way"`
}

func loadCases(t *testing.T, file string) []testCase {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s holds no case", file)
	}
	return cases
}

func (c testCase) requests() (want, got equiv.Request) {
	header := func(m map[string]string) http.Header {
		h := http.Header{}
		for k, v := range m {
			h.Set(k, v)
		}
		return h
	}
	return equiv.Request{Path: c.WantPath, Header: header(c.WantHeader), Body: c.Want},
		equiv.Request{Path: c.GotPath, Header: header(c.GotHeader), Body: c.Got}
}

func TestEquivalentForms(t *testing.T) {
	for _, c := range loadCases(t, "testdata/equivalent.json") {
		t.Run(c.Name, func(t *testing.T) {
			want, got := c.requests()
			if d := equiv.Compare(c.Format, want, got, equiv.Options{LimitSet: c.LimitSet}); len(d) > 0 {
				t.Errorf("Compare found differences in equivalent requests:\n%v", d)
			}
			// And the other way round: equivalence is symmetric.
			if c.OneWay {
				return
			}
			if d := equiv.Compare(c.Format, got, want, equiv.Options{LimitSet: c.LimitSet}); len(d) > 0 {
				t.Errorf("Compare(got, want) found differences:\n%v", d)
			}
		})
	}
}

func TestSemanticChanges(t *testing.T) {
	for _, c := range loadCases(t, "testdata/different.json") {
		t.Run(c.Name, func(t *testing.T) {
			want, got := c.requests()
			d := equiv.Compare(c.Format, want, got, equiv.Options{LimitSet: c.LimitSet})
			var fields []string
			for _, x := range d {
				fields = append(fields, x.Field)
				if x.Want == x.Got {
					t.Errorf("%s: want and got are both %s", x.Field, x.Want)
				}
			}
			if !slices.Equal(fields, c.Fields) {
				t.Errorf("fields = %q, want %q\n%v", fields, c.Fields, d)
			}
		})
	}
}

func TestDifferenceString(t *testing.T) {
	d := equiv.Compare(equiv.Anthropic,
		equiv.Request{Body: []byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1"}]}]}`)},
		equiv.Request{Body: []byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x"}]}]}`)},
		equiv.Options{})
	if len(d) != 1 {
		t.Fatalf("differences = %v, want one", d)
	}
	const want = `messages[0].content[0].tool_use_id: want "toolu_1", got "x"`
	if got := d[0].String(); got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

func TestNotJSON(t *testing.T) {
	d := equiv.Compare(equiv.Chat, equiv.Request{Body: []byte("a=1")}, equiv.Request{Body: []byte("a=2")}, equiv.Options{})
	if len(d) != 1 || d[0].Field != "body" {
		t.Errorf("differences = %v, want one at body", d)
	}
	if d := equiv.Compare(equiv.Chat, equiv.Request{Body: []byte("a=1")}, equiv.Request{Body: []byte("a=1\n")}, equiv.Options{}); len(d) != 0 {
		t.Errorf("equal non-JSON bodies differ: %v", d)
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]equiv.Format{
		"/v1/messages": equiv.Anthropic,
		"/model/anthropic.claude-sonnet-4-6/invoke":                                 equiv.Anthropic,
		"/v1/projects/p/locations/l/publishers/anthropic/models/c:streamRawPredict": equiv.Anthropic,
		"/v1/chat/completions":                                  equiv.Chat,
		"/openai/deployments/gpt-4.1-mini/chat/completions":     equiv.Chat,
		"/v1/responses":                                         equiv.Responses,
		"/v1beta/models/gemini-2.5-flash:streamGenerateContent": equiv.Gemini,
		"/api/chat": equiv.Ollama,
		"/model/amazon.nova-lite-v1:0/converse-stream": equiv.Converse,
		"/v1/models": equiv.Generic,
	} {
		if got := equiv.FormatOf(path); got != want {
			t.Errorf("FormatOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestMaxDifferences(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("{")
	b.WriteString("{")
	for i := range 50 {
		if i > 0 {
			a.WriteString(",")
			b.WriteString(",")
		}
		a.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1`)
		b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":2`)
	}
	a.WriteString("}")
	b.WriteString("}")
	d := equiv.Compare(equiv.Generic, equiv.Request{Body: []byte(a.String())}, equiv.Request{Body: []byte(b.String())}, equiv.Options{})
	if len(d) != equiv.MaxDifferences {
		t.Errorf("%d differences, want MaxDifferences (%d)", len(d), equiv.MaxDifferences)
	}
}

// TestProtoBytes: a bytes field's JSON form is base64 in either alphabet,
// padded or not, one alphabet per value.
func TestProtoBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // the decoded bytes; "" with ok false for an error
		ok   bool
	}{
		{"c2lnLXJvdW5kLTE=", "sig-round-1", true},
		{"c2lnLXJvdW5kLTE", "sig-round-1", true},
		{"+/8=", "\xfb\xff", true},
		{"-_8", "\xfb\xff", true},
		{"skip_thought_signature_validator", "\xb2\x48\xa9\xfe\xd8\x68\xba\x08\x6d\xfe\xc8\xa0\x9d\xab\x6e\xad\xef\xef\x6a\x58\x9d\x6a\xda\x2b", true},
		// URL-safe and unpadded, so bytes to protobuf, though no
		// signature Gemini sends (standard, padded) looks like it.
		{"sig-round-1", "\xb2\x28\x3e\xae\x8b\xa7\x77\xed", true},
		{"", "", true},
		{"sig.round.1", "", false},
		{"c2lnLXZlcmJhdGltLTQy+/=", "", false}, // 23 characters
		{"-/8=", "", false},                    // both alphabets
		{"c2lnLXJvdW5kLTE==", "", false},
	} {
		got, err := equiv.ProtoBytes(c.in)
		if (err == nil) != c.ok || string(got) != c.want {
			t.Errorf("ProtoBytes(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}
