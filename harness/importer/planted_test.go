package importer_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"

	"github.com/metis-llm/metis/harness/importer"
	"github.com/metis-llm/metis/internal/secrets"
	"github.com/metis-llm/metis/internal/secrets/secretstest"
)

// TestImportPlantedSecretsNeverWritten imports, through each format (a
// vcrpy cassette, a go-vcr cassette, a HAR file), every exchange
// secretstest plants a key of every shape in — every position and
// container — and finds the key in no form (raw, escaped,
// percent-encoded, base64) in the metis cassette; the import is
// scrubbed, not refused. (These generated inputs are the only place the
// keys are: they are built at run time.)
func TestImportPlantedSecretsNeverWritten(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct {
		format importer.Format
		ext    string
		encode func(secretstest.Exchange) ([]byte, error)
	}{
		{importer.FormatVCRPy, "yaml", vcrpyInput},
		{importer.FormatGoVCR, "yaml", goVCRInput},
		{importer.FormatHAR, "har", harInput},
	} {
		for _, k := range secretstest.Keys() {
			for _, ex := range secretstest.Exchanges(k) {
				t.Run(string(f.format)+"/"+k.Shape+"/"+ex.Name, func(t *testing.T) {
					data, err := f.encode(ex)
					require.NoError(t, err)
					in := filepath.Join(dir, "in."+f.ext)
					require.NoError(t, os.WriteFile(in, data, 0o644))
					out := filepath.Join(dir, "out.yaml")
					_, err = importer.Import(out, []string{in}, importer.Options{Format: f.format, Scenario: "planted/x", Provider: "vllm", Force: true, Now: fixedNow})
					require.NoError(t, err, "the import is scrubbed, not refused")
					got, err := os.ReadFile(out)
					require.NoError(t, err)
					for _, f := range secrets.Scan(got, k.Value) {
						t.Errorf("cassette line %d holds the planted %s (%s)", f.Line, k.Shape, f.Kind)
					}
				})
			}
		}
	}
}

func yamlHeaders(h http.Header) map[string][]string {
	m := map[string][]string{}
	for k, vs := range h {
		m[k] = vs
	}
	return m
}

func vcrpyInput(ex secretstest.Exchange) ([]byte, error) {
	return yaml.Marshal(map[string]any{
		"version": 1,
		"interactions": []any{map[string]any{
			"request": map[string]any{"method": ex.Method, "uri": ex.URL, "headers": yamlHeaders(ex.ReqHeader), "body": string(ex.ReqBody)},
			"response": map[string]any{
				"status":  map[string]any{"code": ex.Status, "message": "OK"},
				"headers": yamlHeaders(ex.RespHeader),
				"body":    map[string]any{"string": string(ex.RespBody)},
			},
		}},
	})
}

func goVCRInput(ex secretstest.Exchange) ([]byte, error) {
	return yaml.Marshal(map[string]any{
		"version": 2,
		"interactions": []any{map[string]any{
			"id":       0,
			"request":  map[string]any{"method": ex.Method, "url": ex.URL, "headers": yamlHeaders(ex.ReqHeader), "body": string(ex.ReqBody)},
			"response": map[string]any{"code": ex.Status, "status": "200 OK", "headers": yamlHeaders(ex.RespHeader), "body": string(ex.RespBody)},
		}},
	})
}

func harInput(ex secretstest.Exchange) ([]byte, error) {
	headers := func(h http.Header) []map[string]string {
		var out []map[string]string
		for k, vs := range h {
			for _, v := range vs {
				out = append(out, map[string]string{"name": k, "value": v})
			}
		}
		return out
	}
	content := map[string]any{"mimeType": ex.RespHeader.Get("Content-Type"), "text": string(ex.RespBody)}
	if !utf8.Valid(ex.RespBody) {
		content["text"], content["encoding"] = base64.StdEncoding.EncodeToString(ex.RespBody), "base64"
	}
	return json.Marshal(map[string]any{"log": map[string]any{
		"version": "1.2",
		"entries": []any{map[string]any{
			"startedDateTime": "2026-03-01T12:00:00Z",
			"request": map[string]any{
				"method": ex.Method, "url": ex.URL, "headers": headers(ex.ReqHeader),
				"postData": map[string]any{"mimeType": ex.ReqHeader.Get("Content-Type"), "text": string(ex.ReqBody)},
			},
			"response": map[string]any{"status": ex.Status, "statusText": "OK", "headers": headers(ex.RespHeader), "content": content},
		}},
	}})
}
