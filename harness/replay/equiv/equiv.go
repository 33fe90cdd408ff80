// Package equiv decides whether two provider requests mean the same to
// the provider: whether a request an adapter sent is equivalent, for the
// API it goes to, to the request a cassette recorded. It is the body
// comparison of certification's semantic matching (replay.MatchSemantic):
// a third party's adapter need not send metis's bytes, only a request
// the provider treats alike.
//
// Each wire format (Format) has its own normal form: the forms its API
// documents as alike (a string and one text block, an absent field and
// its documented default, "stream": false and no stream field, …) are
// rewritten to one, and then the two requests are compared field by field,
// keys in any order and numbers by value. Fields whose value is the
// adapter's own choice when the caller set none (the output-token limit)
// are compared only when Options says the caller set them. Everything
// else is compared: a dropped tool, a lost thinking signature, a changed
// tool id, input or schema, a sampling parameter the caller never set,
// are all differences, named by their JSON path. docs/request-matching.md
// lists the rules.
package equiv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/harness/internal/jsonwalk"
)

// Format is a provider wire format, named as scenarios name them.
type Format string

// The wire formats with rules of their own. Any other format (Generic)
// is compared with the rules every format shares.
const (
	Anthropic Format = "anthropic" // Anthropic Messages, also on Bedrock and Vertex
	Responses Format = "responses" // OpenAI Responses
	Chat      Format = "chat"      // OpenAI Chat Completions and compatible servers
	Gemini    Format = "gemini"    // Gemini generateContent, also on Vertex
	Ollama    Format = "ollama"    // Ollama's native /api/chat
	Converse  Format = "converse"  // Amazon Bedrock Converse
	Generic   Format = ""
)

// FormatOf returns the wire format of a request to path, the provider's
// own path (no run prefix); Generic when the path is none it knows.
func FormatOf(path string) Format {
	switch {
	case strings.HasSuffix(path, "/messages"),
		strings.HasSuffix(path, "/invoke"), strings.HasSuffix(path, "/invoke-with-response-stream"),
		strings.HasSuffix(path, ":rawPredict"), strings.HasSuffix(path, ":streamRawPredict"):
		return Anthropic
	case strings.HasSuffix(path, "/chat/completions"):
		return Chat
	case strings.HasSuffix(path, "/responses"):
		return Responses
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		return Gemini
	case strings.HasSuffix(path, "/api/chat"), strings.HasSuffix(path, "/api/generate"):
		return Ollama
	case strings.HasSuffix(path, "/converse"), strings.HasSuffix(path, "/converse-stream"):
		return Converse
	}
	return Generic
}

// Options are what the comparison knows of the call beyond the two
// requests.
type Options struct {
	// LimitSet says the caller set an output-token limit; when false the
	// limit each format sends (max_tokens, max_output_tokens,
	// maxOutputTokens, num_predict, …) is the adapter's own default and
	// is not compared.
	LimitSet bool
}

// A Request is what the comparison reads of an HTTP request.
type Request struct {
	// Path is the provider path, with the model where the format puts it
	// there (Gemini, Bedrock, Azure deployments).
	Path string
	// Header holds the request's headers; only Anthropic's
	// anthropic-version and anthropic-beta take part.
	Header http.Header
	// Body is the request body, JSON for every format here.
	Body []byte
}

// A Difference is one place where two requests differ after
// normalisation: the field's path ("messages[1].content[0].tool_use_id",
// "path", "header anthropic-beta", "body" for a body that is not JSON)
// and the wanted and got values, compact JSON, "(absent)" for a missing
// one.
type Difference struct {
	Field string `json:"field"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: want %s, got %s", d.Field, d.Want, d.Got)
}

// MaxDifferences caps how many differences Compare returns.
const MaxDifferences = 20

// Compare returns the differences between the recorded request want and
// the request got under f's equivalence, at most MaxDifferences, in
// field order; none means the provider treats them alike.
func Compare(f Format, want, got Request, o Options) []Difference {
	var out []Difference
	if want.Path != got.Path {
		out = append(out, Difference{"path", strconv.Quote(want.Path), strconv.Quote(got.Path)})
	}
	if f == Anthropic {
		out = append(out, compareAnthropicHeaders(want.Header, got.Header)...)
	}
	wv, werr := Normalize(f, want.Body, o)
	gv, gerr := Normalize(f, got.Body, o)
	switch {
	case werr != nil || gerr != nil:
		if !bytes.Equal(bytes.TrimSpace(want.Body), bytes.TrimSpace(got.Body)) {
			out = append(out, Difference{"body", shorten(strconv.Quote(string(want.Body))), shorten(strconv.Quote(string(got.Body)))})
		}
	default:
		if f == Gemini {
			optionalCallIDs(wv, gv)
			if !strings.Contains(want.Path, "/publishers/") {
				placeholderSignatures(wv)
				placeholderSignatures(gv)
			}
		}
		diff("", wv, gv, &out)
	}
	if len(out) > MaxDifferences {
		out = out[:MaxDifferences]
	}
	return out
}

// optionalCallIDs drops from got each Gemini functionCall and
// functionResponse id where the recording's part at the same place has
// none. The id is optional, "populated by the client to match the
// corresponding function call" (the API's FunctionResponse reference):
// sending one the recording left out changes nothing the model reads,
// while an id the recording has must still be sent unchanged.
func optionalCallIDs(want, got any) {
	wc := objects(mapOf(want)["contents"])
	gc := objects(mapOf(got)["contents"])
	for i := range min(len(wc), len(gc)) {
		wp, gp := objects(wc[i]["parts"]), objects(gc[i]["parts"])
		for j := range min(len(wp), len(gp)) {
			for _, k := range []string{"functionCall", "functionResponse"} {
				w, okW := wp[j][k].(map[string]any)
				g, okG := gp[j][k].(map[string]any)
				if _, has := w["id"]; okW && okG && !has {
					delete(g, "id")
				}
			}
		}
	}
}

// The placeholder signatures the Gemini API documents for calls it did
// not sign (a history made by another model) mean the same: the thought
// signatures page's FAQ names both. Vertex AI documents skipSignature
// alone, so its requests (paths under /publishers/) keep the value sent.
// Both are base64 (URL-safe, unpadded), so a normal form holds them as
// canonicalSignature spells them, and so must the comparison.
const (
	skipSignature               = "skip_thought_signature_validator"
	contextEngineeringSignature = "context_engineering_is_the_way_to_go"
)

// placeholderSignatures rewrites each part's contextEngineeringSignature
// to skipSignature, both in their normal form's spelling.
func placeholderSignatures(v any) {
	from, to := canonicalSignature(contextEngineeringSignature), canonicalSignature(skipSignature)
	for _, c := range objects(mapOf(v)["contents"]) {
		for _, p := range objects(c["parts"]) {
			if p["thoughtSignature"] == from {
				p["thoughtSignature"] = to
			}
		}
	}
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// compareAnthropicHeaders compares the headers that change what
// Anthropic's API does: anthropic-version must be the recorded one, and
// every recorded anthropic-beta flag must be sent; more flags are
// accepted.
func compareAnthropicHeaders(want, got http.Header) []Difference {
	var out []Difference
	if w, g := want.Get("anthropic-version"), got.Get("anthropic-version"); w != "" && w != g {
		out = append(out, Difference{"header anthropic-version", strconv.Quote(w), quoteOrAbsent(g)})
	}
	sent := betaFlags(got)
	var lost []string
	for _, f := range betaFlags(want) {
		if !slices.Contains(sent, f) {
			lost = append(lost, f)
		}
	}
	if len(lost) > 0 {
		out = append(out, Difference{"header anthropic-beta", strconv.Quote(strings.Join(lost, ",")), quoteOrAbsent(strings.Join(sent, ","))})
	}
	return out
}

func betaFlags(h http.Header) []string {
	var out []string
	for _, v := range h.Values("anthropic-beta") {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

func quoteOrAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return strconv.Quote(s)
}

// Normalize decodes a JSON body and rewrites it into f's normal form:
// numbers as exact decimal strings (json.Number), null members dropped,
// then f's own rules. Two bodies are equivalent when their normal forms
// are deeply equal. A body that is not one JSON value is an error.
func Normalize(f Format, body []byte, o Options) (any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("equiv: decoding the body: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("equiv: the body holds more than one JSON value")
	}
	v = clean(v, 0)
	if m, ok := v.(map[string]any); ok {
		switch f {
		case Anthropic:
			anthropic(m, o)
		case Chat:
			chat(m, o)
		case Responses:
			responses(m, o)
		case Gemini:
			m = gemini(m, o)
			v = m
		case Ollama:
			ollama(m, o)
		case Converse:
			converse(m, o)
		}
	}
	return v, nil
}

// maxDepth bounds the nesting clean follows; deeper values are kept as
// they are (compared as decoded).
const maxDepth = 512

// clean drops null object members and rewrites every number to its
// exact value's canonical decimal form, so that 1, 1.0 and 1e0 are one.
func clean(v any, depth int) any {
	if depth > maxDepth {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = clean(e, depth+1)
		}
	case []any:
		for i, e := range x {
			x[i] = clean(e, depth+1)
		}
	case json.Number:
		return json.Number(canonicalNumber(string(x)))
	}
	return v
}

// canonicalNumber is a JSON number's exact value in plain decimal, no
// exponent, no trailing fractional zeros, so that 1, 1.0 and 1e0 are
// one. A number with an exponent too large to expand is kept as
// written.
func canonicalNumber(s string) string {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := s[i+1:]
		if len(strings.TrimLeft(e, "+-")) > 3 {
			return s
		}
		n, err := strconv.Atoi(e)
		if err != nil {
			return s
		}
		mant, exp = s[:i], n
	}
	frac := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		frac = len(mant) - i - 1
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	out := r.FloatString(max(frac-exp, 0))
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	if out == "-0" {
		out = "0"
	}
	return out
}

// diff appends the differences between want and got at path.
func diff(path string, want, got any, out *[]Difference) {
	if len(*out) >= MaxDifferences {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || kindDiffers(w, g) {
			*out = append(*out, Difference{field(path), render(want), render(got)})
			return
		}
		for _, k := range jsonwalk.Keys(w, g) {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			x, inW := w[k]
			y, inG := g[k]
			switch {
			case !inW:
				*out = append(*out, Difference{sub, "(absent)", render(y)})
			case !inG:
				*out = append(*out, Difference{sub, render(x), "(absent)"})
			default:
				diff(sub, x, y, out)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			*out = append(*out, Difference{field(path), render(want), render(got)})
			return
		}
		for i := range max(len(w), len(g)) {
			sub := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(w):
				*out = append(*out, Difference{sub, "(absent)", render(g[i])})
			case i >= len(g):
				*out = append(*out, Difference{sub, render(w[i]), "(absent)"})
			default:
				diff(sub, w[i], g[i], out)
			}
		}
	default:
		if !scalarEqual(want, got) {
			*out = append(*out, Difference{field(path), render(want), render(got)})
		}
	}
}

// kindDiffers reports two objects of different kinds (their "type" or
// "role" differ): one is reported whole, not member by member.
func kindDiffers(a, b map[string]any) bool {
	for _, k := range []string{"type", "role"} {
		x, okA := a[k].(string)
		y, okB := b[k].(string)
		if okA && okB && x != y {
			return true
		}
	}
	return false
}

func field(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

func scalarEqual(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

func render(v any) string {
	if v == nil {
		return "null"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return shorten(fmt.Sprint(v))
	}
	return shorten(strings.TrimSpace(buf.String()))
}

func shorten(s string) string {
	const limit = 160
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
