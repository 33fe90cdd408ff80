package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// recordingMeta is a recording's meta.json.
type recordingMeta struct {
	Status          *int              `json:"status"`
	ResponseHeaders map[string]string `json:"response_headers"`
	Request         *struct {
		Method  string            `json:"method"`
		URI     string            `json:"uri"`
		Headers map[string]string `json:"headers"`
	} `json:"request"`
}

// responseFiles are the response bodies a recording may have, and what
// each holds.
var responseFiles = []string{"response.txt", "response.json", "response.ndjson", "response.chunks.jsonl", "response.bin"}

// readRecording reads a recording directory (testdata/recordings layout):
// meta.json, request.json (the request body, when recorded), SOURCE.txt
// (origin repository, path and commit date) and one response file. dir is
// the directory's name for messages and provenance; endpoint ("METHOD
// URL") stands in for a request meta.json does not have.
func readRecording(fsys fs.FS, dir, endpoint string) (*Traffic, error) {
	fail := func(file, format string, args ...any) error {
		return &Error{File: path.Join(dir, file), Msg: fmt.Sprintf(format, args...)}
	}
	data, err := fs.ReadFile(fsys, "meta.json")
	if err != nil {
		return nil, fail("meta.json", "missing: not a recording directory (meta.json, response.*, SOURCE.txt)")
	}
	var meta recordingMeta
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, jsonError(path.Join(dir, "meta.json"), data, err)
	}
	if meta.Status == nil {
		return nil, fail("meta.json", "status: missing")
	}
	e := &exchange{code: *meta.Status, reqHeader: http.Header{}, respHeader: http.Header{}}
	switch {
	case meta.Request != nil:
		e.method, e.url = meta.Request.Method, meta.Request.URI
		for k, v := range meta.Request.Headers {
			e.reqHeader.Set(k, v)
		}
	case endpoint != "":
		method, u, ok := strings.Cut(strings.TrimSpace(endpoint), " ")
		if !ok {
			return nil, &Error{File: dir, Msg: fmt.Sprintf("endpoint %q: want \"METHOD URL\"", endpoint)}
		}
		e.method, e.url = method, strings.TrimSpace(u)
	default:
		return nil, fail("meta.json", "request: missing, so the request's method and URL are unknown; give them with --endpoint \"POST https://...\"")
	}
	for k, v := range meta.ResponseHeaders {
		e.respHeader.Set(k, v)
	}
	if b, err := fs.ReadFile(fsys, "request.json"); err == nil {
		e.reqBody = b
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fail("request.json", "%v", err)
	}
	var found []string
	for _, name := range responseFiles {
		if _, err := fs.Stat(fsys, name); err == nil {
			found = append(found, name)
		}
	}
	switch len(found) {
	case 0:
		return nil, fail("", "no response file (one of %s)", strings.Join(responseFiles, ", "))
	case 1:
	default:
		return nil, fail("", "more than one response file: %s", strings.Join(found, ", "))
	}
	body, err := fs.ReadFile(fsys, found[0])
	if err != nil {
		return nil, fail(found[0], "%v", err)
	}
	switch found[0] {
	case "response.bin":
		return nil, fail(found[0], "a binary AWS event stream; cassettes hold text bodies, and no metis adapter speaks Bedrock's event stream")
	case "response.chunks.jsonl":
		if body, err = chunksToSSE(body, e.url); err != nil {
			return nil, fail(found[0], "%v", err)
		}
		if !isEventStream(e.respHeader) {
			e.respHeader.Set("Content-Type", "text/event-stream")
		}
	}
	e.respBody = body
	in, err := e.interaction(func(place, format string, args ...any) error {
		return fail("meta.json", "%s: %s", place, fmt.Sprintf(format, args...))
	})
	if err != nil {
		return nil, err
	}
	t := &Traffic{File: dir, Format: FormatRecording, Interactions: []*cassette.Interaction{in}}
	if src, err := fs.ReadFile(fsys, "SOURCE.txt"); err == nil {
		t.Project, t.RecordedAt = parseSource(src)
	}
	return t, nil
}

// chunksToSSE restores the framing its recorder stripped from a stream:
// each line of a .chunks.jsonl file is one event's data. The framing is
// the API's own, as the recordings' SOURCE.txt describe it: OpenAI
// Responses events get their "event: <type>" line, Gemini streams CRLF
// line ends, and Chat Completions streams end with "data: [DONE]". Blank
// lines are skipped; a line that is not JSON is an error naming it.
func chunksToSSE(data []byte, rawURL string) ([]byte, error) {
	u, _ := url.Parse(rawURL)
	var path string
	if u != nil {
		path = u.Path
	}
	responses := strings.HasSuffix(path, "/responses")
	eol := "\n"
	if strings.HasSuffix(path, ":streamGenerateContent") {
		eol = "\r\n"
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxInput)
	n, done := 0, false
	for sc.Scan() {
		n++
		line := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		done = string(line) == "[DONE]"
		if !json.Valid(line) && !done {
			return nil, fmt.Errorf("line %d is not JSON", n)
		}
		if responses {
			var head struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(line, &head) == nil && head.Type != "" {
				out.WriteString("event: " + head.Type + eol)
			}
		}
		out.WriteString("data: ")
		out.Write(line)
		out.WriteString(eol + eol)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !responses && eol == "\n" && !done && out.Len() > 0 {
		out.WriteString("data: [DONE]\n\n")
	}
	return out.Bytes(), nil
}

// parseSource reads a SOURCE.txt: the repository and path become the
// origin project, and the date of the commit line the recording time.
func parseSource(data []byte) (project string, recorded time.Time) {
	var repo, file string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case k == "repository":
			repo = v
		case k == "path":
			file = v
		case strings.HasPrefix(k, "commit"):
			fields := strings.Fields(v)
			if len(fields) > 0 {
				if t, err := time.Parse(time.RFC3339, fields[len(fields)-1]); err == nil {
					recorded = t
				}
			}
		}
	}
	project = repo
	if file != "" {
		project = strings.TrimSpace(repo + " " + file)
	}
	return project, recorded
}
