package replay

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// idPattern is the regular expression NormalizeIDs once used: the oracle
// its linear scan must agree with.
var idPattern = regexp.MustCompile(`\b(tu|req)_[0-9A-HJKMNP-TV-Z]{26}\b`)

func normalizeIDsRegexp(s string) string {
	seen := map[string]string{}
	count := map[string]int{}
	return idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if r, ok := seen[id]; ok {
			return r
		}
		prefix, _, _ := strings.Cut(id, "_")
		count[prefix]++
		r := prefix + "_" + strconv.Itoa(count[prefix])
		seen[id] = r
		return r
	})
}

const ulidA, ulidB = "01JABCDEFGHJKMNPQRSTVWXYZ0", "01JZZZZZZZZZZZZZZZZZZZZZZ9"

var idCases = []string{
	"",
	"no ids here",
	`{"id":"tu_` + ulidA + `","x":"tu_` + ulidB + `","y":"tu_` + ulidA + `"}`,
	"req_" + ulidA + " then tu_" + ulidA,
	"xtu_" + ulidA,                 // no word boundary before
	"tu_" + ulidA + "Z",            // no word boundary after
	"tu_" + ulidA[:25],             // too short
	"tu_01JABCDEFGHJKMNPQRSTVWXYI", // I is not Crockford
	"_tu_" + ulidA,
	"-tu_" + ulidA + "-",
	"req_req_" + ulidA,
	"tu_tu_" + ulidA + " req_" + ulidB + " req_" + ulidB,
	"toolu_01ABC and call_xyz and tu_short",
	"ü tu_" + ulidA + " é",
}

// TestNormalizeIDsMatchesRegexp checks the linear scan against the
// regular expression it replaced.
func TestNormalizeIDsMatchesRegexp(t *testing.T) {
	for _, s := range idCases {
		if got, want := NormalizeIDs(s), normalizeIDsRegexp(s); got != want {
			t.Errorf("NormalizeIDs(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzNormalizeIDs(f *testing.F) {
	for _, s := range idCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormalizeIDs(s), normalizeIDsRegexp(s); got != want {
			t.Fatalf("NormalizeIDs(%q) = %q, want %q", s, got, want)
		}
	})
}

// keyBodies are request bodies whose keys must agree with their readable
// canonical texts: equal keys exactly when the texts are equal.
var keyBodies = []string{
	``, ` `, `{}`, `[]`, `null`, `true`, `1`, `-0.5e+10`, `"s"`,
	`{"b":1,"a":[1,2,{"d":null,"c":"x"}]}`,
	` { "a" : [ 1 , 2 , { "c" : "x" , "d" : null } ] , "b" : 1 } `,
	`{"a":"\u00e9\/\"\\\n","b":"é/\"\\\n"}`,
	`{"a":"\ud83d\ude00","b":"😀","c":"\ud83d","d":"\udc00x"}`,
	`{"a":1,"a":2}`, `{"a":2}`, `{"\u0061":2}`,
	`{"api_key":"sk-live-123","x":1}`, `{"api_key":"REDACTED","x":1}`, `{"api_key" : "other","x":1}`,
	`{"api_key":5}`, `{"Api-Key":"v"}`,
	`{"args":"{\"password\":\"hunter2\"}"}`, `{"args":"{\"password\":\"REDACTED\"}"}`,
	`{"id":"tu_01JABCDEFGHJKMNPQRSTVWXYZ0","n":"tu_01JZZZZZZZZZZZZZZZZZZZZZZ9"}`,
	`{"id":"tu_01JZZZZZZZZZZZZZZZZZZZZZZ9","n":"tu_01JABCDEFGHJKMNPQRSTVWXYZ0"}`,
	"{\"a\":\"\xff\"}", "{\"a\":\"\xfe\"}",
	`{"a":1}x`, `{"a":01}`, `not json`, "\u00a0{}", `{"a":1,}`, `[1,]`, `{"a" 1}`,
	`1.0`, `1.00`, `1e5`, `1E5`,
	strings.Repeat("[", 300) + strings.Repeat("]", 300),
	strings.Repeat("[ ", 300) + strings.Repeat("] ", 300),
	strings.Repeat("[", 300) + strings.Repeat("]", 300) + "x",
	strings.Repeat("[", 300) + "x" + strings.Repeat("]", 300),
	strings.Repeat(`{"b":2,"a":`, 300) + `"tu_01JABCDEFGHJKMNPQRSTVWXYZ0"` + strings.Repeat("}", 300),
	strings.Repeat(`{ "a" : `, 300) + `"tu_01JZZZZZZZZZZZZZZZZZZZZZZ9"` + strings.Repeat(` , "b":2}`, 300),
	strings.Repeat(`{"api_key":"sk-live-123","a":`, 300) + "1" + strings.Repeat("}", 300),
	strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat(`,"api_key":"REDACTED"}`, 300),
	// Nested deep, then not JSON, against the text that is slowKey before
	// the same bytes: two texts, two keys.
	strings.Repeat("[", 300) + "x",
	slowKey + strings.Repeat("[", 300) + "x",
	slowKey + strings.Repeat("[", 300) + strings.Repeat("]", 300),
}

// TestMatchKeyAgreesWithCanonical checks the compact key against the
// readable canonical text on every pair of bodies above and every request
// body recorded in the suite, each also re-indented and with its members
// reversed.
func TestMatchKeyAgreesWithCanonical(t *testing.T) {
	bodies := append([]string(nil), keyBodies...)
	for _, b := range suiteBodies(t) {
		bodies = append(bodies, b, reindent(b), reversed(b))
	}
	keys := make([]string, len(bodies))
	texts := make([]string, len(bodies))
	for i, b := range bodies {
		keys[i], texts[i] = compactBody([]byte(b)), canonicalBody([]byte(b))
	}
	for i := range bodies {
		for j := range bodies {
			if (keys[i] == keys[j]) != (texts[i] == texts[j]) {
				t.Fatalf("bodies %q and %q: keys equal %v, canonical texts equal %v", bodies[i], bodies[j], keys[i] == keys[j], texts[i] == texts[j])
			}
		}
	}
}

// TestMatchKeyCompactForm: a JSON body's key is its compact canonical
// form, built in one pass (keys sorted, the last of duplicates kept, no
// whitespace, strings decoded and re-escaped only where they must be,
// numbers as written, credentials masked, canonical ids numbered); a body
// that is not JSON is its own text (ending in a newline, as Canonical
// writes it), and JSON nested past MaxKeyDepth is
// left to declinedBody.
func TestMatchKeyCompactForm(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{``, ``},
		{"  \n", ``},
		{`{"b":1,"a":[1,2,{"d":null,"c":"x"}]}`, `{"a":[1,2,{"c":"x","d":null}],"b":1}`},
		{" { \"a\" :\t[ 1 , true , false ] ,\r\n\"b\":{ } } ", `{"a":[1,true,false],"b":{}}`},
		{`[ ]`, `[]`},
		{` [[],{},"",0] `, `[[],{},"",0]`},
		{`"s"`, `"s"`},
		{`true`, `true`},
		{`null`, `null`},
		{`-0.5e+10`, `-0.5e+10`},
		{`[1E5,1e-2,0,-12.50,10]`, `[1E5,1e-2,0,-12.50,10]`},
		{`[9,-9.9e9,19]`, `[9,-9.9e9,19]`},
		{`-`, "-\n"},
		{`[1,-`, "[1,-\n"},
		{`[1.]`, "[1.]\n"},
		{`[1e]`, "[1e]\n"},
		{`{"a":"\u00e9\u00C9\/\"\\\n"}`, `{"a":"éÉ/\"\\\n"}`},
		{`{"t":"\u0009\u0001\u0008\u000C\u000d\u001F"}`, `{"t":"\t\u0001\b\f\r\u001f"}`},
		{`{"a":"\ud83d\ude00","c":"\ud83d","d":"\udc00x"}`, `{"a":"😀","c":"�","d":"�x"}`},
		{"{\"a\":\"\xff\"}", `{"a":"�"}`},
		{"{\"a\":\"\x80\\/\"}", `{"a":"�/"}`},
		{`{"h":"\u00af\u00AF\u00fA\u0030\u0039"}`, `{"h":"¯¯ú09"}`},
		{"{\"q\":\"\\u0022\\u005c\\u000a\\u0020\\u007f\"}", "{\"q\":\"\\\"\\\\\\n \x7f\"}"},
		{`"\u00g0"`, "\"\\u00g0\"\n"},
		{`"\u00G0"`, "\"\\u00G0\"\n"},
		{`"\u00:0"`, "\"\\u00:0\"\n"},
		{`{"é":"ü","a":"x\"y"}`, `{"a":"x\"y","é":"ü"}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`{"x":1,"api_key":"sk-live-123"}`, `{"api_key":"REDACTED","x":1}`},
		{`{"api_key":"a\"b\\"}`, `{"api_key":"REDACTED"}`},
		{`{"api_key":5}`, `{"api_key":5}`},
		{`{"api_key":"a\`, "{\"api_key\":\"a\\\n"},
		{"{\"api_key\":\"a\\\nb\"}", "{\"api_key\":\"a\\\nb\"}\n"},
		{`{"args":"{\"password\":\"hunter2\"}"}`, `{"args":"{\"password\":\"REDACTED\"}"}`},
		{`{"id":"tu_01JABCDEFGHJKMNPQRSTVWXYZ0","n":["tu_01JABCDEFGHJKMNPQRSTVWXYZ0"]}`, `{"id":"tu_1","n":["tu_1"]}`},
		{`{"a":01}`, "{\"a\":01}\n"},
		{`{"a":1}x`, "{\"a\":1}x\n"},
		{`[1,]`, "[1,]\n"},
		{`{"a" 1}`, "{\"a\" 1}\n"},
		{`"\u00zz"`, "\"\\u00zz\"\n"},
		{`nul`, "nul\n"},
	} {
		if got := compactBody([]byte(tc.body)); got != tc.want {
			t.Errorf("compactBody(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
	deep := strings.Repeat("[", MaxKeyDepth+1) + strings.Repeat("]", MaxKeyDepth+1)
	if got := compactBody([]byte(deep)); !strings.HasPrefix(got, slowKey) {
		t.Errorf("compactBody(%d nested arrays) = %.40q…, want the readable form", MaxKeyDepth+1, got)
	}
	deepObject := strings.Repeat(`{"a":`, MaxKeyDepth+1) + "1" + strings.Repeat("}", MaxKeyDepth+1)
	if got := compactBody([]byte(deepObject)); !strings.HasPrefix(got, slowKey) {
		t.Errorf("compactBody(%d nested objects) = %.40q…, want the readable form", MaxKeyDepth+1, got)
	}
	shallow := strings.Repeat("[", MaxKeyDepth) + strings.Repeat("]", MaxKeyDepth)
	if got := compactBody([]byte(shallow)); got != shallow {
		t.Errorf("compactBody(%d nested arrays) = %.40q…, want them compact", MaxKeyDepth, got)
	}
}

func FuzzMatchKey(f *testing.F) {
	for i, b := range keyBodies {
		f.Add([]byte(b), []byte(keyBodies[(i+1)%len(keyBodies)]))
		f.Add([]byte(b), []byte(reindent(b)))
		f.Add([]byte(b), []byte(reversed(b)))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ka, kb := compactBody(a), compactBody(b)
		ta, tb := canonicalBody(a), canonicalBody(b)
		if (ka == kb) != (ta == tb) {
			t.Fatalf("bodies %q and %q: keys equal %v, canonical texts equal %v", a, b, ka == kb, ta == tb)
		}
	})
}

// suiteBodies returns every request body recorded in the suite's
// cassettes.
func suiteBodies(t *testing.T) []string {
	t.Helper()
	var out []string
	root := filepath.Join("..", "..", "cassettes")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		c, err := cassette.Load(strings.TrimSuffix(path, ".yaml"))
		if err != nil {
			return err
		}
		for _, in := range c.Interactions {
			out = append(out, in.Request.Body)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("only %d recorded request bodies under %s", len(out), root)
	}
	return out
}

// reindent is b indented, or b when it is not JSON.
func reindent(b string) string {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(b), "", "   ") != nil {
		return b
	}
	return buf.String()
}

// reversed is b with every object's members in reverse order (and
// escapes as encoding/json writes them), or b when it is not JSON.
func reversed(b string) string {
	dec := json.NewDecoder(strings.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return b
	}
	var buf bytes.Buffer
	writeReversed(&buf, v)
	return buf.String()
}

func writeReversed(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		// Descending order: the reverse of the canonical sort.
		for i := range keys {
			for j := i + 1; j < len(keys); j++ {
				if keys[j] > keys[i] {
					keys[i], keys[j] = keys[j], keys[i]
				}
			}
		}
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			writeReversed(buf, v[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeReversed(buf, e)
		}
		buf.WriteByte(']')
	default:
		b, _ := json.Marshal(v)
		buf.Write(b)
	}
}
