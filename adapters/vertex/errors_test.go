package vertex

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// TestErrors classifies Vertex AI's failure shapes, for both publishers.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		file      string
		status    int
		claude    bool
		stream    bool
		class     canonical.ErrorClass
		code      string
		retryable bool
		message   string
	}{
		{file: "error-401-unauthenticated.json", status: 401, class: canonical.ErrAuth, message: "Request had invalid authentication credentials"},
		{file: "error-401-unauthenticated.json", status: 401, claude: true, class: canonical.ErrAuth, message: "Expected OAuth 2 access token"},
		{file: "error-403-permission-denied.json", status: 403, claude: true, class: canonical.ErrAuth, message: "Permission 'aiplatform.endpoints.predict' denied"},
		{file: "error-404-publisher-model.json", status: 404, class: canonical.ErrInvalidRequest, code: canonical.CodeModelNotFound, message: "Publisher Model"},
		{file: "error-429-resource-exhausted-stream.json", status: 429, stream: true, class: canonical.ErrRateLimit, retryable: true, message: "Resource exhausted"},
		{file: "error-429-claude-quota.json", status: 429, claude: true, class: canonical.ErrRateLimit, retryable: true, message: "Quota exceeded"},
		{file: "error-529-claude-overloaded.json", status: 529, claude: true, stream: true, class: canonical.ErrRateLimit, code: canonical.CodeOverloaded, retryable: true, message: "Overloaded"},
		{file: "error-400-claude-model-field.json", status: 400, claude: true, class: canonical.ErrInvalidRequest, message: "model: Extra inputs are not permitted"},
	} {
		name := tc.file
		if tc.claude {
			name = "claude/" + name
		}
		t.Run(name, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.Reply{Status: tc.status, ContentType: "application/json", Body: readTestdata(t, tc.file)})
			var (
				a interface {
					Complete(context.Context, *canonical.Request) (*canonical.Response, error)
				}
				err error
				id  string
			)
			cfg := withKey(config(srv.URL, map[string]any{"project": "my-project"}, nil))
			if tc.claude {
				id = "vertex-anthropic:claude-sonnet-4-5@20250929"
				ad, nerr := NewAnthropic(cfg)
				require.NoError(t, nerr)
				a = ad
				if tc.stream {
					_, err = adaptertest.Collect(ad.Stream(context.Background(), weatherRequest(id, false, "hi")))
				}
			} else {
				id = "vertex:gemini-2.5-flash"
				ad, nerr := New(cfg)
				require.NoError(t, nerr)
				a = ad
				if tc.stream {
					_, err = adaptertest.Collect(ad.Stream(context.Background(), weatherRequest(id, false, "hi")))
				}
			}
			if !tc.stream {
				_, err = a.Complete(context.Background(), weatherRequest(id, false, "hi"))
			}
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, tc.status, ae.Status)
			assert.Equal(t, tc.retryable, ae.Retryable)
			assert.Contains(t, ae.Message, tc.message)
			assert.Equal(t, 1, ae.Attempts, "MaxRetries is 0 here")
		})
	}
}

// TestClaudeStreamErrorEvent: an `event: error` mid-stream completes the
// message (stop reason error, the text so far) and yields the classified
// error, as on Anthropic's API.
func TestClaudeStreamErrorEvent(t *testing.T) {
	srv := adaptertest.NewServer(t, adaptertest.Reply{Status: 200, ContentType: "text/event-stream; charset=utf-8", Body: readTestdata(t, "claude-stream-error-overloaded.sse")})
	a, err := NewAnthropic(withKey(config(srv.URL, map[string]any{"project": "my-project"}, nil)))
	require.NoError(t, err)
	evs, err := adaptertest.Collect(a.Stream(context.Background(), weatherRequest("vertex-anthropic:claude-sonnet-4-5@20250929", false, "hi")))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrRateLimit, ae.Class)
	assert.Equal(t, canonical.CodeOverloaded, ae.Code)
	require.Empty(t, streamcheck.Check(evs))
	last := adaptertest.Final(t, evs)
	assert.Equal(t, canonical.StopError, last.StopReason)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Hel"}}, last.Content); diff != "" {
		t.Errorf("last.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-sonnet-4-5-20250929", last.ServedModel)
}

// TestRetryOn429 retries a Vertex quota error and succeeds.
func TestRetryOn429(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "gemini", "vertex-nonstream-functioncall")
	srv := adaptertest.NewServer(t,
		adaptertest.Reply{Status: 429, ContentType: "application/json", Body: readTestdata(t, "error-429-claude-quota.json")},
		rec.Reply())
	cfg := withKey(config(srv.URL, map[string]any{"project": "my-project"}, nil))
	cfg.MaxRetries = 2
	clock := adaptertest.NewClock(time.Now())
	cfg.Clock = clock
	var attempts []adapters.Attempt
	cfg.OnAttempt = func(a adapters.Attempt) { attempts = append(attempts, a) }
	a, err := New(cfg)
	require.NoError(t, err)
	resp, err := a.Complete(context.Background(), weatherRequest("vertex:gemini-2.5-pro", true, "weather?"))
	require.NoError(t, err)
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	require.Len(t, attempts, 2)
	assert.Equal(t, 429, attempts[0].Status)
	assert.Len(t, clock.Sleeps(), 1)
}
