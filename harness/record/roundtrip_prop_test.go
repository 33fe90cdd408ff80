package record_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/harness/replay"
)

// bodyCase is one generated exchange of the record → replay property: the
// request body sent (nil: no body at all) and the response body the server
// writes, how the server sends it and how the client asks for it.
type bodyCase struct {
	name        string
	request     []byte // nil: a GET with no body
	response    []byte
	contentType string
	gzip        bool // the server compresses; the client's transport decodes (it sets no Accept-Encoding)
	status      int
}

// genBody makes a body of one of the shapes real servers send: bytes of
// any value (NUL, invalid UTF-8), server-sent events framed by CRLF, LF
// or CR alone, JSON with escapes and non-ASCII text, white space only,
// and the empty body. It never makes anything shaped like an API key (the
// recorder masks those, a property of its own).
func genBody(r *rand.Rand) []byte {
	n := r.IntN(600)
	switch r.IntN(7) {
	case 0: // any byte
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	case 1, 2: // SSE, one line ending for the whole body or mixed
		var sb strings.Builder
		ends := []string{"\r\n", "\n", "\r"}
		end := ends[r.IntN(3)]
		for i := r.IntN(6); i >= 0; i-- {
			if r.IntN(4) == 0 {
				end = ends[r.IntN(3)]
			}
			fmt.Fprintf(&sb, "event: e%d%sdata: {\"i\":%d,\"t\":\"%s\"}%s%s", i, end, i, words(r), end, end)
			if r.IntN(5) == 0 {
				sb.WriteString(": keep-alive" + end + end)
			}
		}
		return []byte(sb.String())
	case 3: // JSON with escapes, non-ASCII text and trailing white space
		return []byte(fmt.Sprintf("{\"text\":%q,\"n\":%d}%s", words(r)+"\u00e9\u4e16\t\"\\", r.IntN(1000), strings.Repeat(" \n", r.IntN(3))))
	case 4: // white space and line ends only
		b := make([]byte, n%40)
		for i := range b {
			b[i] = " \t\r\n"[r.IntN(4)]
		}
		return b
	case 5:
		return []byte{}
	default: // text with NUL and DEL
		return []byte(words(r) + "\x00\x7f" + words(r))
	}
}

func words(r *rand.Rand) string {
	const letters = "abc xyz\u00fc"
	var sb strings.Builder
	for i := r.IntN(30); i > 0; i-- {
		sb.WriteString(string([]rune(letters)[r.IntN(len([]rune(letters)))]))
	}
	return sb.String()
}

func genCase(r *rand.Rand, i int) bodyCase {
	c := bodyCase{name: fmt.Sprintf("case%03d", i), response: genBody(r), status: []int{200, 200, 201, 400, 429, 500}[r.IntN(6)]}
	c.contentType = []string{"text/event-stream", "application/json", "application/octet-stream", "text/plain; charset=utf-8"}[r.IntN(4)]
	if r.IntN(3) > 0 {
		c.request = genBody(r)
	}
	c.gzip = r.IntN(4) == 0
	return c
}

// exchange sends c's request through rt to url and returns the status and
// the response body the caller reads.
func exchange(t *testing.T, rt http.RoundTripper, url string, c bodyCase) (int, string, []byte) {
	t.Helper()
	method, body := http.MethodGet, io.Reader(nil)
	if c.request != nil {
		method, body = http.MethodPost, bytes.NewReader(c.request)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, body)
	require.NoError(t, err)
	if c.request != nil {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err, c.name)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err, c.name)
	return resp.StatusCode, resp.Header.Get("Content-Type"), got
}

// TestRecordReplayBodiesByteExact is the record → replay property: for any
// request and response body (binary, CRLF-framed events, gzip on the wire,
// empty, or no request body at all), what a caller reads from a replay of
// the cassette is byte for byte what it read live, with the same status
// and content type, for a request with the same body.
func TestRecordReplayBodiesByteExact(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(34, 5))
	dir := t.TempDir()
	for i := range n {
		c := genCase(r, i)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			got, _ := io.ReadAll(req.Body)
			if !bytes.Equal(got, c.request) && !(len(got) == 0 && len(c.request) == 0) {
				http.Error(w, "the server got another request body", http.StatusTeapot)
				return
			}
			w.Header().Set("Content-Type", c.contentType)
			if c.gzip {
				w.Header().Set("Content-Encoding", "gzip")
				w.WriteHeader(c.status)
				zw := gzip.NewWriter(w)
				zw.Write(c.response)
				zw.Close()
				return
			}
			w.WriteHeader(c.status)
			w.Write(c.response)
		}))
		path := filepath.Join(dir, c.name+".yaml")
		rec, err := record.NewRecorder(path, record.Options{Provider: "anthropic", Transport: srv.Client().Transport, Now: fixedNow})
		require.NoError(t, err)
		url := srv.URL + "/v1/messages"
		liveStatus, liveType, live := exchange(t, rec, url, c)
		srv.Close()
		require.Equal(t, c.status, liveStatus, c.name)
		require.Equal(t, string(c.response), string(live), "%s: the caller reads the server's body live", c.name)
		require.NoError(t, rec.Save(), c.name)

		player, err := replay.Load(path)
		require.NoError(t, err, c.name)
		status, ctype, got := exchange(t, player, url, c)
		require.Equal(t, liveStatus, status, "%s: status", c.name)
		require.Equal(t, liveType, ctype, "%s: content type", c.name)
		if !bytes.Equal(live, got) {
			t.Fatalf("%s (gzip %v, request body %q): replayed body differs from the live one\nlive   %q\nreplay %q", c.name, c.gzip, c.request, live, got)
		}
		require.Empty(t, player.Unused(), c.name)
	}
}

// TestRecordReplayEmptyAndAbsentBodies pins the edge the generator above
// reaches only by chance: a request with no body, one with an empty body,
// and a response with no body (204) or an empty one (200, Content-Length
// 0) each record and replay, and a replayed empty body reads as empty.
func TestRecordReplayEmptyAndAbsentBodies(t *testing.T) {
	for _, c := range []bodyCase{
		{name: "absent-request", request: nil, response: []byte("ok"), contentType: "text/plain", status: 200},
		{name: "empty-request", request: []byte{}, response: []byte("ok"), contentType: "text/plain", status: 200},
		{name: "no-content", request: []byte("{}"), response: nil, contentType: "text/plain", status: 204},
		{name: "empty-response", request: []byte("{}"), response: []byte{}, contentType: "application/json", status: 200},
		{name: "crlf-only", request: []byte("\r\n"), response: []byte("\r\n\r\n"), contentType: "text/event-stream", status: 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				io.Copy(io.Discard, req.Body)
				w.Header().Set("Content-Type", c.contentType)
				w.WriteHeader(c.status)
				w.Write(c.response)
			}))
			defer srv.Close()
			path := filepath.Join(t.TempDir(), "c.yaml")
			rec, err := record.NewRecorder(path, record.Options{Provider: "anthropic", Transport: srv.Client().Transport, Now: fixedNow})
			require.NoError(t, err)
			_, _, live := exchange(t, rec, srv.URL+"/v1/x", c)
			require.Equal(t, string(c.response), string(live))
			require.NoError(t, rec.Save())
			player, err := replay.Load(path)
			require.NoError(t, err)
			status, _, got := exchange(t, player, srv.URL+"/v1/x", c)
			require.Equal(t, c.status, status)
			require.Equal(t, string(c.response), string(got))
		})
	}
}
