package faults_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeNext is the transport behind the injector: it answers every request
// with status, contentType and body, and counts the requests it saw.
type fakeNext struct {
	status      int
	contentType string
	body        string

	mu    sync.Mutex
	calls int
}

func (f *fakeNext) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if req.Body != nil {
		req.Body.Close()
	}
	status := f.status
	if status == 0 {
		status = 200
	}
	return &http.Response{
		StatusCode:    status,
		Header:        http.Header{"Content-Type": {f.contentType}, "Content-Length": {"999"}},
		Body:          io.NopCloser(strings.NewReader(f.body)),
		ContentLength: int64(len(f.body)),
		Request:       req,
	}, nil
}

func (f *fakeNext) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func sse(body string) *fakeNext {
	return &fakeNext{contentType: "text/event-stream; charset=utf-8", body: body}
}

// Request paths of the four APIs.
const (
	anthropicURL = "https://api.anthropic.com/v1/messages"
	responsesURL = "https://api.openai.com/v1/responses"
	chatURL      = "https://api.openai.com/v1/chat/completions"
	geminiURL    = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
)

func newRequest(t testing.TB, ctx context.Context, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"model":"m"}`))
	require.NoError(t, err)
	return req
}

// readAll reads a body with a small buffer, returning what was read and
// the error that ended it (nil for a clean EOF).
func readAll(r io.Reader) (string, error) {
	var sb strings.Builder
	buf := make([]byte, 7)
	for {
		n, err := r.Read(buf)
		sb.Write(buf[:n])
		if errors.Is(err, io.EOF) {
			return sb.String(), nil
		}
		if err != nil {
			return sb.String(), err
		}
	}
}
