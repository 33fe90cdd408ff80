package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/harness/replay"
)

// Format names an input format.
type Format string

// The formats Import reads.
const (
	FormatVCRPy     Format = "vcrpy"
	FormatGoVCR     Format = "go-vcr"
	FormatHAR       Format = "har"
	FormatRecording Format = "recording"
)

// Formats lists the formats, for usage messages.
var Formats = []Format{FormatVCRPy, FormatGoVCR, FormatHAR, FormatRecording}

// maxInput bounds one input file, so that a wrong path (a disk image)
// fails fast instead of exhausting memory.
const maxInput = 256 << 20

// Error is a problem with an input: its file, where in it (a line, a field
// path, or both), and what is wrong.
type Error struct {
	File string
	// Line counts from 1; 0 when unknown.
	Line int
	// Place is a path to the offending value, such as
	// "interactions[2].response.body"; empty for the file as a whole.
	Place string
	Msg   string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString(e.File)
	if e.Line > 0 {
		sb.WriteString(":" + strconv.Itoa(e.Line))
	}
	sb.WriteString(": ")
	if e.Place != "" {
		sb.WriteString(e.Place + ": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Traffic is what one input holds.
type Traffic struct {
	// File is the input's path, as given.
	File   string
	Format Format
	// Project is the project that recorded the traffic, when the input
	// says (a recording's SOURCE.txt).
	Project string
	// RecordedAt is when the traffic was recorded, when the input says
	// (HAR timestamps, a recording's SOURCE.txt); zero otherwise.
	RecordedAt   time.Time
	Interactions []*cassette.Interaction
}

// Read reads one input: a file in any format, or a recording directory,
// as opts.Format and opts.Endpoint say. With the format empty it is
// detected.
func Read(path string, opts Options) (*Traffic, error) {
	format := opts.Format
	info, err := os.Stat(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read it", Err: err}
	}
	if info.IsDir() {
		if format != "" && format != FormatRecording {
			return nil, &Error{File: path, Msg: fmt.Sprintf("is a directory; only the %s format is a directory", FormatRecording)}
		}
		return readRecording(os.DirFS(path), path, opts.Endpoint)
	}
	if format == FormatRecording {
		return nil, &Error{File: path, Msg: "the recording format is a directory (meta.json, response.*, ...), not a file"}
	}
	if info.Size() > maxInput {
		return nil, &Error{File: path, Msg: fmt.Sprintf("is %d bytes, more than the %d an input may have", info.Size(), maxInput)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read it", Err: err}
	}
	return Parse(path, data, format)
}

// Parse converts the contents of one input file (gzip-compressed or not);
// file names it in errors. With format empty the format is detected.
func Parse(file string, data []byte, format Format) (*Traffic, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, &Error{File: file, Msg: "looks gzip-compressed but is not", Err: err}
		}
		plain, err := io.ReadAll(io.LimitReader(zr, maxInput+1))
		if err != nil {
			return nil, &Error{File: file, Msg: "decompressing", Err: err}
		}
		if len(plain) > maxInput {
			return nil, &Error{File: file, Msg: fmt.Sprintf("decompresses to more than %d bytes", maxInput)}
		}
		data = plain
	}
	if format == "" {
		var err error
		if format, err = detect(file, data); err != nil {
			return nil, err
		}
	}
	var t *Traffic
	var err error
	switch format {
	case FormatVCRPy:
		t, err = parseVCRPy(file, data)
	case FormatGoVCR:
		t, err = parseGoVCR(file, data)
	case FormatHAR:
		t, err = parseHAR(file, data)
	case FormatRecording:
		return nil, &Error{File: file, Msg: "the recording format is a directory, not a file"}
	default:
		return nil, &Error{File: file, Msg: fmt.Sprintf("unknown format %q (known: %s)", format, joinFormats())}
	}
	if err != nil {
		return nil, err
	}
	if len(t.Interactions) == 0 {
		return nil, &Error{File: file, Msg: "holds no interaction"}
	}
	return t, nil
}

func joinFormats() string {
	var s []string
	for _, f := range Formats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// detect names the format of a file's contents: HAR is JSON with a "log"
// object; vcrpy cassettes (YAML or vcrpy's JSON serializer) have
// interactions whose request has a "uri"; go-vcr cassettes have a "url".
func detect(file string, data []byte) (Format, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return "", &Error{File: file, Msg: "is empty"}
	}
	root, err := parseYAML(file, data)
	if err != nil {
		return "", err
	}
	if _, ok := root.key("log"); ok {
		return FormatHAR, nil
	}
	ints, ok := root.key("interactions")
	if !ok {
		return "", root.errf("not a vcrpy, go-vcr or HAR file: no top-level \"interactions\" (cassettes) or \"log\" (HAR); name the format with --format if it is one of %s", joinFormats())
	}
	items, err := ints.seq()
	if err != nil {
		return "", err
	}
	if len(items) == 0 {
		return "", ints.errf("holds no interaction")
	}
	req, err := items[0].need("request")
	if err != nil {
		return "", err
	}
	if _, ok := req.key("uri"); ok {
		return FormatVCRPy, nil
	}
	if _, ok := req.key("url"); ok {
		return FormatGoVCR, nil
	}
	return "", req.errf("has neither \"uri\" (vcrpy) nor \"url\" (go-vcr)")
}

// exchange is one request and response as an input holds them, before it
// becomes an interaction.
type exchange struct {
	method, url        string
	reqHeader          http.Header
	reqBody            []byte
	code               int
	status             string
	respHeader         http.Header
	respBody           []byte
	compressedRequest  bool // request body may be content-encoded
	compressedResponse bool // response body may be content-encoded
}

// interaction checks e and builds the cassette interaction; at names the
// exchange in errors.
func (e *exchange) interaction(at func(place, format string, args ...any) error) (*cassette.Interaction, error) {
	if e.method == "" {
		return nil, at("request.method", "missing")
	}
	if strings.ContainsAny(e.method, " \t\r\n") {
		return nil, at("request.method", "%q is not an HTTP method", e.method)
	}
	u, err := url.Parse(e.url)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, at("request.url", "%q is not an absolute URL", e.url)
	}
	if e.code < 100 || e.code > 599 {
		return nil, at("response.status", "%d is not an HTTP status", e.code)
	}
	if e.reqHeader == nil {
		e.reqHeader = http.Header{}
	}
	if e.respHeader == nil {
		e.respHeader = http.Header{}
	}
	reqBody, err := decodeBody(e.reqBody, e.reqHeader, e.compressedRequest)
	if err != nil {
		return nil, at("request.body", "%v", err)
	}
	respBody, err := decodeBody(e.respBody, e.respHeader, e.compressedResponse)
	if err != nil {
		return nil, at("response.body", "%v", err)
	}
	status := e.status
	if status == "" {
		status = http.StatusText(e.code)
	}
	length := int64(len(respBody))
	var te []string
	if isEventStream(e.respHeader) {
		length, te = -1, []string{"chunked"}
	}
	return &cassette.Interaction{
		Request: cassette.Request{
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			ContentLength: int64(len(reqBody)), Host: u.Host,
			Body: string(reqBody), Headers: e.reqHeader, URL: e.url, Method: e.method,
		},
		Response: cassette.Response{
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			TransferEncoding: te, ContentLength: length,
			Body: string(respBody), Headers: e.respHeader,
			Status: strconv.Itoa(e.code) + " " + status, Code: e.code,
		},
	}, nil
}

func isEventStream(h http.Header) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	return strings.HasPrefix(ct, "text/event-stream")
}

// Options configures Import.
type Options struct {
	// Format is the inputs' format; empty detects it for each.
	Format Format
	// Scenario, Provider and Model go into the provenance header.
	Scenario, Provider, Model string
	// Project overrides the origin project the inputs name (a recording's
	// SOURCE.txt); required context when they name none is welcome but
	// optional.
	Project string
	// Match is how replay matches the cassette's requests; empty means
	// replay.MatchEndpoint, since another client made them. Use
	// replay.MatchExact when the scenario reproduces the requests byte
	// for byte.
	Match replay.Match
	// Endpoint is "METHOD URL" for inputs that did not record their
	// request (some recordings keep only the response); an input that did
	// record it keeps its own.
	Endpoint string
	// Force overwrites an existing cassette.
	Force bool
	// Now stamps recorded_at when no input says when it was recorded;
	// nil means time.Now.
	Now func() time.Time
}

// Result says what Import did.
type Result struct {
	Path         string
	Interactions int
	// Unchanged is set when the cassette already held exactly this
	// traffic and was left as it was.
	Unchanged  bool
	Provenance replay.Provenance
}

// Import converts inputs (files or recording directories, in order; their
// interactions are concatenated) into the metis cassette at out (".yaml"
// is added when missing), scrubbed and written atomically, with an
// imported provenance header. An existing cassette is an error unless
// opts.Force. On any error nothing is written.
func Import(out string, inputs []string, opts Options) (*Result, error) {
	if len(inputs) == 0 {
		return nil, errors.New("import: no input given")
	}
	if !strings.HasSuffix(out, ".yaml") {
		out += ".yaml"
	}
	match := opts.Match
	if match == "" {
		match = replay.MatchEndpoint
	}
	if match != replay.MatchEndpoint && match != replay.MatchExact {
		return nil, fmt.Errorf("import: match %q: want %s or %s", match, replay.MatchEndpoint, replay.MatchExact)
	}
	if _, err := os.Stat(out); err == nil && !opts.Force {
		return nil, fmt.Errorf("import: %s exists; use --force to overwrite it", out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("import: %w", err)
	}
	var all []*cassette.Interaction
	var files, formats, projects []string
	var recorded time.Time
	for _, in := range inputs {
		t, err := Read(in, opts)
		if err != nil {
			return nil, err
		}
		all = append(all, t.Interactions...)
		files = append(files, t.File)
		if !slices.Contains(formats, string(t.Format)) {
			formats = append(formats, string(t.Format))
		}
		if t.Project != "" && !slices.Contains(projects, t.Project) {
			projects = append(projects, t.Project)
		}
		if t.RecordedAt.After(recorded) {
			recorded = t.RecordedAt
		}
	}
	for i, in := range all {
		in.ID = i
	}
	if recorded.IsZero() {
		now := time.Now
		if opts.Now != nil {
			now = opts.Now
		}
		recorded = now()
	}
	project := strings.Join(projects, ", ")
	if opts.Project != "" {
		project = opts.Project
	}
	prov := replay.Provenance{
		Scenario: opts.Scenario, Provider: opts.Provider, Model: opts.Model,
		Source:        replay.SourceImported,
		OriginFile:    strings.Join(files, ", "),
		OriginProject: project,
		OriginFormat:  strings.Join(formats, ", "),
		Match:         match,
		RecordedAt:    recorded.UTC().Truncate(time.Second),
		MetisVersion:  record.Version,
	}
	if prov.Provider == "" {
		prov.Provider = providerOf(all[0].Request.URL)
	}
	unchanged, err := record.WriteCassette(out, prov, all)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return &Result{Path: out, Interactions: len(all), Unchanged: unchanged, Provenance: prov}, nil
}

// providerOf guesses the provider from a request's host, for the
// provenance of a cassette imported without --provider.
func providerOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "unknown"
	}
	host := u.Hostname()
	for _, p := range []struct{ suffix, name string }{
		{"anthropic.com", "anthropic"},
		{"openai.com", "openai"},
		{"googleapis.com", "gemini"},
		{"openrouter.ai", "openrouter"},
	} {
		if host == p.suffix || strings.HasSuffix(host, "."+p.suffix) {
			return p.name
		}
	}
	if host == "" {
		return "unknown"
	}
	return host
}
