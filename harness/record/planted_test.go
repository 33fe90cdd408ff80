package record_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/internal/secrets"
	"github.com/metis-llm/metis/internal/secrets/secretstest"
)

// answer is a transport that answers every request with ex's response.
type answer secretstest.Exchange

func (a answer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: a.Status, Status: http.StatusText(a.Status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: a.RespHeader.Clone(), Body: io.NopCloser(bytes.NewReader(a.RespBody)), ContentLength: int64(len(a.RespBody)),
		Request: req,
	}, nil
}

// TestPlantedSecretsNeverWritten records, with no key configured (a
// keyless --base-url server), every exchange secretstest plants a key of
// every shape in — every position and container — and finds the key in
// no form (raw, escaped, percent-encoded, base64) in the cassette; the
// recording is scrubbed, not refused.
func TestPlantedSecretsNeverWritten(t *testing.T) {
	n := 0
	for _, k := range secretstest.Keys() {
		for _, ex := range secretstest.Exchanges(k) {
			// -short (the race detector's run in CI) keeps one exchange in
			// eight; go test ./... plants every one.
			if n++; testing.Short() && n%8 != 1 {
				continue
			}
			t.Run(k.Shape+"/"+ex.Name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "c.yaml")
				rec, err := record.NewRecorder(path, record.Options{Transport: answer(ex), Scenario: "planted/x", Provider: "vllm"})
				require.NoError(t, err)
				req, err := http.NewRequest(ex.Method, ex.URL, bytes.NewReader(ex.ReqBody))
				require.NoError(t, err)
				req.Header = ex.ReqHeader.Clone()
				resp, err := rec.RoundTrip(req)
				require.NoError(t, err)
				got, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				resp.Body.Close()
				require.Equal(t, ex.RespBody, got, "the caller gets the response unchanged")
				require.NoError(t, rec.Save(), "the recording is scrubbed, not refused")
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				for _, f := range secrets.Scan(data, k.Value) {
					t.Errorf("cassette line %d holds the planted %s (%s)", f.Line, k.Shape, f.Kind)
				}
			})
		}
	}
}
