package importer

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// FuzzParse feeds arbitrary bytes to format detection and every parser:
// the result is an *Error or traffic whose interactions are all
// well-formed, never a panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("interactions:\n- request: {method: GET, uri: 'https://h/x', parsed_body: &a [*a]}\n  response: {status: {code: 200}}\n"))
	f.Add([]byte("version: 1\ninteractions:\n- request: {url: 'https://h/x', method: GET}\n  response: {status: 200 OK}\n"))
	f.Add([]byte(`{"log": {"entries": [{"request": {"method": "GET", "url": "https://h/x"}, "response": {"status": 200, "content": {"text": "aGk=", "encoding": "base64"}}}]}}`))
	f.Add([]byte("\x1f\x8b\x08\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse("fuzz.yaml", data, "")
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("error is not an *Error: %v", err)
			}
			return
		}
		if len(tr.Interactions) == 0 {
			t.Fatal("accepted traffic with no interaction")
		}
		for _, in := range tr.Interactions {
			u, err := url.Parse(in.Request.URL)
			if err != nil || u.Scheme == "" || u.Host == "" || in.Request.Method == "" || in.Response.Code < 100 || in.Response.Code > 599 {
				t.Fatalf("accepted a malformed interaction: %+v", in.Request)
			}
		}
	})
}

// FuzzReadRecording feeds arbitrary meta.json and response files to the
// recording reader.
func FuzzReadRecording(f *testing.F) {
	f.Add([]byte(`{"status":200,"response_headers":{"content-type":"text/event-stream"},"request":{"method":"POST","uri":"https://api.anthropic.com/v1/messages","headers":{}}}`), []byte("event: ping\ndata: {}\n\n"), false)
	f.Add([]byte(`{"status":200,"request":{"method":"POST","uri":"https://h/v1/x"}}`), []byte("{\"a\":1}\n[DONE]\n"), true)
	f.Add([]byte(`{"status":"x"}`), []byte{}, false)
	f.Fuzz(func(t *testing.T, meta, body []byte, chunks bool) {
		name := "response.txt"
		if chunks {
			name = "response.chunks.jsonl"
		}
		fsys := fstest.MapFS{"meta.json": {Data: meta}, name: {Data: body}, "SOURCE.txt": {Data: []byte("repository: https://example.com\n")}}
		tr, err := readRecording(fsys, "rec", "POST https://api.openai.com/v1/chat/completions")
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("error is not an *Error: %v", err)
			}
			return
		}
		if len(tr.Interactions) != 1 {
			t.Fatalf("%d interactions", len(tr.Interactions))
		}
		if !chunks && tr.Interactions[0].Response.Body != string(body) {
			t.Fatal("the body changed")
		}
	})
}
