package importer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/importer"
	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/harness/replay"
)

var fixedNow = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// samples maps each sample input to the scenario whose cassette it
// becomes, its provider and its format.
var samples = []struct {
	file, scenario, provider string
	format                   importer.Format
}{
	{"testdata/vcrpy/pydantic-ai-anthropic-thinking-stream.yaml", "import/vcrpy-anthropic-thinking-stream", "anthropic", importer.FormatVCRPy},
	{"testdata/vcrpy/langchain-openai-chat-tool-round-trip.yaml", "import/vcrpy-openai-chat-tool-round-trip", "openai", importer.FormatVCRPy},
	{"testdata/vcrpy/pydantic-ai-gemini-parsed-body.yaml", "import/vcrpy-gemini-parsed-body", "gemini", importer.FormatVCRPy},
	{"testdata/govcr/v2-openai-responses-function-call-stream.yaml", "import/govcr-openai-responses-function-call", "openai", importer.FormatGoVCR},
	{"testdata/govcr/v4-ollama-chat.yaml", "import/govcr-ollama-chat", "ollama", importer.FormatGoVCR},
	{"testdata/har/mitmproxy-gemini-two-turns.har", "import/har-gemini-two-turns", "gemini", importer.FormatHAR},
}

// TestImportedSamplesReplayGreen converts every sample (vcrpy, go-vcr,
// HAR) into the cassette of a scenario and replays the scenarios through
// the real adapters: each must decode to the facts its scenario states.
func TestImportedSamplesReplayGreen(t *testing.T) {
	dir := t.TempDir()
	for _, s := range samples {
		out := filepath.Join(dir, s.provider, filepath.FromSlash(s.scenario)+".yaml")
		res, err := importer.Import(out, []string{s.file}, importer.Options{Scenario: s.scenario, Provider: s.provider, Now: fixedNow})
		require.NoError(t, err, s.file)
		assert.Equal(t, s.format, importer.Format(res.Provenance.OriginFormat), s.file)
		p, err := record.ReadProvenance(out)
		require.NoError(t, err)
		assert.Equal(t, record.SourceImported, p.Source)
		assert.Equal(t, replay.MatchEndpoint, p.Match)
		assert.Equal(t, s.file, p.OriginFile)
		assert.Equal(t, s.scenario, p.Scenario)
	}
	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: "testdata/scenarios", CassetteDir: dir, NoGoldens: true, Factories: providers.Factories(),
	})
	require.NoError(t, err)
	require.Len(t, res.Runs, len(samples))
	for _, r := range res.Runs {
		for _, f := range r.Findings {
			t.Log(r.Name(), f)
		}
		assert.Equal(t, harness.StatusPass, r.Status, "%s: %s", r.Name(), r.Reason)
		assert.Equal(t, "imported", r.Source, r.Name())
	}
}

// TestImportScrubs checks that keys, cookies and the organization header
// of the samples are gone, request ids masked, and the content-encoding
// undone.
func TestImportScrubs(t *testing.T) {
	dir := t.TempDir()
	for _, s := range samples {
		out := filepath.Join(dir, filepath.Base(s.file)+".yaml")
		_, err := importer.Import(out, []string{s.file}, importer.Options{Now: fixedNow})
		require.NoError(t, err, s.file)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		text := string(data)
		for _, secret := range []string{"TESTONLYnotArealKEY", "TESTONLYcookie", "test-org-not-real", "req_8f2c1e9a7b3d4f5a6c0e1d2b3a4c5d6e", "OpenAI/Python"} {
			assert.NotContains(t, text, secret, out)
		}
		assert.Empty(t, record.ScanSecrets(data), out)
		c, err := cassette.Load(strings.TrimSuffix(out, ".yaml"))
		require.NoError(t, err)
		for _, in := range c.Interactions {
			assert.Empty(t, in.Response.Headers.Get("Content-Encoding"), "bodies are stored decoded")
			if id := in.Response.Headers.Get("X-Request-Id"); id != "" {
				assert.True(t, strings.HasPrefix(id, "req_masked_"), id)
			}
		}
	}
}

// TestImportKeepsStreamsByteForByte imports every vendored real recording
// that the importer can read and compares each body in the cassette with
// the recording's file, byte for byte.
func TestImportKeepsStreamsByteForByte(t *testing.T) {
	root := adaptertest.FixturesDir(t)
	dirs, err := filepath.Glob(filepath.Join(root, "*", "*"))
	require.NoError(t, err)
	out := t.TempDir()
	imported := 0
	for _, d := range dirs {
		if info, err := os.Stat(d); err != nil || !info.IsDir() {
			continue
		}
		name := filepath.Base(filepath.Dir(d)) + "/" + filepath.Base(d)
		path := filepath.Join(out, strings.ReplaceAll(name, "/", "_")+".yaml")
		_, err := importer.Import(path, []string{d}, importer.Options{Now: fixedNow})
		if _, bin := os.Stat(filepath.Join(d, "response.bin")); bin == nil {
			require.Error(t, err, name)
			assert.Contains(t, err.Error(), "binary AWS event stream")
			continue
		}
		if name == "gemini/error-429-resource-exhausted-retryinfo" || name == "openai-responses/stream-error-event-insufficient-quota" {
			require.Error(t, err, name)
			assert.Contains(t, err.Error(), "request: missing, so the request's method and URL are unknown")
			continue
		}
		require.NoError(t, err, name)
		imported++
		c, err := cassette.Load(strings.TrimSuffix(path, ".yaml"))
		require.NoError(t, err)
		require.Len(t, c.Interactions, 1)
		in := c.Interactions[0]
		for _, f := range []string{"response.txt", "response.json", "response.ndjson"} {
			if want, err := os.ReadFile(filepath.Join(d, f)); err == nil {
				assert.Equal(t, string(want), in.Response.Body, "%s: %s differs", name, f)
			}
		}
		if want, err := os.ReadFile(filepath.Join(d, "request.json")); err == nil {
			assert.Equal(t, string(want), in.Request.Body, name)
		}
		p, err := record.ReadProvenance(path)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(p.OriginProject, "https://github.com/"), "%s: origin project from SOURCE.txt: %q", name, p.OriginProject)
		assert.False(t, p.RecordedAt.Equal(fixedNow()), "%s: recorded_at comes from SOURCE.txt", name)
	}
	assert.Greater(t, imported, 55)
}

func TestImportChunksRestoreDataFraming(t *testing.T) {
	d := adaptertest.FixturesDir(t, "openai-chat", "deepseek-stream-reasoning-then-tool-call")
	out := filepath.Join(t.TempDir(), "c.yaml")
	_, err := importer.Import(out, []string{d}, importer.Options{})
	require.NoError(t, err)
	c, err := cassette.Load(strings.TrimSuffix(out, ".yaml"))
	require.NoError(t, err)
	body := c.Interactions[0].Response.Body
	lines, err := os.ReadFile(filepath.Join(d, "response.chunks.jsonl"))
	require.NoError(t, err)
	want := ""
	for _, l := range strings.Split(strings.TrimRight(string(lines), "\n"), "\n") {
		want += "data: " + l + "\n\n"
	}
	assert.Equal(t, want+"data: [DONE]\n\n", body, "Chat Completions framing, [DONE] included")
	assert.Equal(t, "text/event-stream", c.Interactions[0].Response.Headers.Get("Content-Type"))
}

func TestImportResponsesChunksWithEndpoint(t *testing.T) {
	d := adaptertest.FixturesDir(t, "openai-responses", "stream-error-event-insufficient-quota")
	out := filepath.Join(t.TempDir(), "c.yaml")
	_, err := importer.Import(out, []string{d}, importer.Options{})
	require.ErrorContains(t, err, "give them with --endpoint")
	_, err = importer.Import(out, []string{d}, importer.Options{Endpoint: "POST https://api.openai.com/v1/responses"})
	require.NoError(t, err)
	c, err := cassette.Load(strings.TrimSuffix(out, ".yaml"))
	require.NoError(t, err)
	in := c.Interactions[0]
	assert.Equal(t, "https://api.openai.com/v1/responses", in.Request.URL)
	assert.True(t, strings.HasPrefix(in.Response.Body, "event: response.created\ndata: {\"type\":\"response.created\""), in.Response.Body)
	assert.Contains(t, in.Response.Body, "\n\nevent: error\ndata: {\"type\":\"error\"")
	assert.NotContains(t, in.Response.Body, "[DONE]", "Responses streams have no [DONE]")
}

func TestImportConcatenatesInputsAndKeepsUnchangedFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "two.yaml")
	inputs := []string{samples[2].file, samples[4].file}
	res, err := importer.Import(out, inputs, importer.Options{Now: fixedNow})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Interactions)
	assert.Equal(t, "vcrpy, go-vcr", res.Provenance.OriginFormat)
	first, err := os.ReadFile(out)
	require.NoError(t, err)

	_, err = importer.Import(out, inputs, importer.Options{Now: fixedNow})
	require.ErrorContains(t, err, "exists; use --force to overwrite it")

	later := func() time.Time { return fixedNow().Add(time.Hour) }
	res, err = importer.Import(out, inputs, importer.Options{Now: later, Force: true})
	require.NoError(t, err)
	assert.True(t, res.Unchanged, "the same traffic: the file and its recorded_at stay")
	again, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, first, again)
}

func TestImportExactMatch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.yaml")
	_, err := importer.Import(out, []string{samples[4].file}, importer.Options{Match: replay.MatchExact})
	require.NoError(t, err)
	p, err := replay.Load(out)
	require.NoError(t, err)
	assert.Equal(t, replay.MatchExact, p.Match())

	_, err = importer.Import(out, []string{samples[4].file}, importer.Options{Match: "fuzzy", Force: true})
	require.ErrorContains(t, err, `match "fuzzy"`)
}

// TestBrokenInputs checks that each broken input is refused with its
// file and place, and that nothing is written.
func TestBrokenInputs(t *testing.T) {
	lc, err := os.ReadFile(samples[1].file)
	require.NoError(t, err)
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "in.yaml: is empty"},
		{"not YAML", "interactions: [\n  {", "in.yaml:"},
		{"unknown format", "hello: world\n", "in.yaml:1: not a vcrpy, go-vcr or HAR file"},
		{"no interactions", "interactions: []\n", "in.yaml:1: interactions: holds no interaction"},
		{"vcrpy without uri or url", "interactions:\n- request: {method: GET}\n  response: {}\n", `in.yaml:2: interactions[0].request: has neither "uri" (vcrpy) nor "url" (go-vcr)`},
		{"vcrpy bad status", "interactions:\n- request: {method: GET, uri: 'https://h/x'}\n  response:\n    status: {code: two hundred}\n", `in.yaml:4: interactions[0].response.status.code: want a number, got "two hundred"`},
		{"vcrpy status a list", "interactions:\n- request: {method: GET, uri: 'https://h/x'}\n  response:\n    status: [200]\n", `in.yaml:4: interactions[0].response.status: want {code: N, message: text}`},
		{"vcrpy status text", "interactions:\n- request: {method: GET, uri: 'https://h/x'}\n  response:\n    status: OK\n", `in.yaml:4: interactions[0].response.status: want {code: N, message: text}, got "OK"`},
		{"vcrpy bad binary header", "interactions:\n- request: {method: GET, uri: 'https://h/x'}\n  response:\n    status: {code: 200}\n    headers: {X-Id: !!binary '%%%'}\n", "in.yaml:5: interactions[0].response.headers.X-Id: !!binary value is not base64"},
		{"parsed_body bad binary", "interactions:\n- request: {method: POST, uri: 'https://h/x', parsed_body: {t: !!binary '%%%'}}\n  response: {status: {code: 200}}\n", "in.yaml:2: interactions[0].request.parsed_body.t: !!binary value is not base64"},
		{"vcrpy relative url", "interactions:\n- request: {method: GET, uri: /v1/x}\n  response: {status: {code: 200}}\n", `in.yaml:2: interactions[0]: request.url: "/v1/x" is not an absolute URL`},
		{"vcrpy bad binary", "interactions:\n- request: {method: GET, uri: 'https://h/x'}\n  response:\n    status: {code: 200}\n    body: {string: !!binary '%%%'}\n", "in.yaml:5: interactions[0].response.body.string: !!binary value is not base64"},
		{"gzip header, plain body", strings.Replace(string(lc), "H4sIAAAAAAACA41TTW", "AAAAAAAAAAAAAAAAAA", 1), "interactions[0]: response.body: content-encoding is gzip but the body is not gzip data"},
		{"brotli", "interactions:\n- request: {method: GET, uri: 'https://h/x'}\n  response:\n    status: {code: 200}\n    headers: {Content-Encoding: [br]}\n    body: {string: abc}\n", "the body is br-encoded, which the importer cannot decode"},
		{"both bodies", "interactions:\n- request: {method: POST, uri: 'https://h/x', body: '{}', parsed_body: {}}\n  response: {status: {code: 200}}\n", "in.yaml:2: interactions[0].request: has both body and parsed_body"},
		{"parsed_body infinity", "interactions:\n- request: {method: POST, uri: 'https://h/x', parsed_body: {t: .inf}}\n  response: {status: {code: 200}}\n", `in.yaml:2: interactions[0].request.parsed_body.t: the number ".inf" has no JSON form`},
		{"go-vcr version 3", "version: 3\ninteractions:\n- request: {url: 'https://h/x', method: GET}\n  response: {code: 200}\n", "in.yaml:1: version: go-vcr cassette version 3 is not one this importer knows"},
		{"go-vcr no code", "version: 1\ninteractions:\n- request: {url: 'https://h/x', method: GET}\n  response: {status: OK}\n", `in.yaml:4: interactions[0].response: no code, and status "OK" does not start with one`},
		{"go-vcr bad status code", "version: 2\ninteractions:\n- request: {url: 'https://h/x', method: GET}\n  response: {code: 1000}\n", "interactions[0]: response.status: 1000 is not an HTTP status"},
		{"HAR bad JSON", `{"log": {"entries": [}}`, "in.yaml:1: not valid JSON: invalid character"},
		{"HAR wrong type", `{"log": {"entries": [{"request": {"method": 1}}]}}`, "log.entries.request.method: want string, got JSON number"},
		{"HAR version", `{"log": {"version": "2.0", "entries": []}}`, "log.version: HAR 2.0"},
		{"HAR no response", `{"log": {"entries": [{"request": {"method": "GET", "url": "https://h/x"}}]}}`, "log.entries[0].response: missing"},
		{"HAR devtools stream", `{"log": {"entries": [{"request": {"method": "GET", "url": "https://h/x"}, "response": {"status": 200, "content": {"size": 812, "text": ""}}}]}}`, "log.entries[0].response.content.text: empty, but the response had 812 bytes"},
		{"HAR bad base64", `{"log": {"entries": [{"request": {"method": "GET", "url": "https://h/x"}, "response": {"status": 200, "content": {"text": "!!", "encoding": "base64"}}}]}}`, "log.entries[0].response.content.text: encoding is base64 but the text is not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.yaml")
			require.NoError(t, os.WriteFile(in, []byte(tt.data), 0o644))
			out := filepath.Join(dir, "out.yaml")
			_, err := importer.Import(out, []string{in}, importer.Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var ie *importer.Error
			assert.True(t, errors.As(err, &ie), "an *importer.Error: %v", err)
			assert.NoFileExists(t, out, "nothing is written")
			entries, _ := os.ReadDir(dir)
			assert.Len(t, entries, 1, "no temporary file is left behind")
		})
	}
}

func TestBrokenRecordings(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no meta", map[string]string{"response.json": "{}"}, "meta.json: missing: not a recording directory"},
		{"bad meta", map[string]string{"meta.json": "{\n\"status\": \"200\"}"}, "meta.json:2: status: want int, got JSON string"},
		{"no response", map[string]string{"meta.json": `{"status":200,"request":{"method":"POST","uri":"https://h/v1/x"}}`}, "no response file"},
		{"two responses", map[string]string{"meta.json": `{"status":200,"request":{"method":"POST","uri":"https://h/v1/x"}}`, "response.json": "{}", "response.txt": "data: x\n\n"}, "more than one response file: response.txt, response.json"},
		{"bad chunk", map[string]string{"meta.json": `{"status":200,"request":{"method":"POST","uri":"https://h/v1/x"}}`, "response.chunks.jsonl": "{}\n{oops\n"}, "response.chunks.jsonl: line 2 is not JSON"},
		{"bad status", map[string]string{"meta.json": `{"status":42,"request":{"method":"POST","uri":"https://h/v1/x"}}`, "response.json": "{}"}, "meta.json: response.status: 42 is not an HTTP status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rec := filepath.Join(dir, "rec")
			require.NoError(t, os.Mkdir(rec, 0o755))
			for name, data := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(rec, name), []byte(data), 0o644))
			}
			out := filepath.Join(dir, "out.yaml")
			_, err := importer.Import(out, []string{rec}, importer.Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NoFileExists(t, out)
		})
	}
}

func TestImportRefusesLeakedKeys(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.yaml")
	data := "interactions:\n- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions', body: '{\"note\": \"my key is %73k-proj-TESTONLYnotArealKEYnotArealKEY\"}'}\n  response: {status: {code: 200}, body: {string: '{}'}}\n"
	require.NoError(t, os.WriteFile(in, []byte(data), 0o644))
	out := filepath.Join(dir, "out.yaml")
	_, err := importer.Import(out, []string{in}, importer.Options{})
	require.ErrorIs(t, err, record.ErrLeak)
	assert.NotContains(t, err.Error(), "TESTONLYnotArealKEY", "the error shows only the start of the key")
	assert.NoFileExists(t, out)
}

func TestParseGzippedCassette(t *testing.T) {
	data, err := os.ReadFile(samples[2].file)
	require.NoError(t, err)
	var buf strings.Builder
	zw := newGzip(&buf)
	_, err = zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	tr, err := importer.Parse("cassette.yaml.gz", []byte(buf.String()), "")
	require.NoError(t, err)
	assert.Equal(t, importer.FormatVCRPy, tr.Format)
	require.Len(t, tr.Interactions, 1)
	assert.JSONEq(t, `{"contents":[{"parts":[{"text":"Name a primary colour."}],"role":"user"}],"generationConfig":{"temperature":0.0}}`, tr.Interactions[0].Request.Body)
	assert.Equal(t, `{"contents":[{"parts":[{"text":"Name a primary colour."}],"role":"user"}],"generationConfig":{"temperature":0.0}}`,
		tr.Interactions[0].Request.Body, "parsed_body keeps the YAML's key order and number forms")
}
