package importer

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func deflated(t *testing.T, s string, wrapped bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if wrapped {
		w := zlib.NewWriter(&b)
		_, err := w.Write([]byte(s))
		require.NoError(t, err)
		require.NoError(t, w.Close())
		return b.Bytes()
	}
	w, err := flate.NewWriter(&b, flate.DefaultCompression)
	require.NoError(t, err)
	_, err = w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// decodeBody undoes each Content-Encoding a recording tool leaves, in
// the strict form (vcrpy: the bytes as sent) and the lenient one (go-vcr,
// HAR: usually decoded already), and says why when it cannot.
func TestDecodeBody(t *testing.T) {
	const text = `{"ok":true}`
	tests := []struct {
		name     string
		body     []byte
		enc      string
		strict   bool
		want     string
		wantErr  string
		keepsLen bool // Content-Length left alone (nothing was decoded)
	}{
		{name: "no encoding", body: []byte(text), want: text, keepsLen: true},
		{name: "identity", body: []byte(text), enc: "identity", strict: true, want: text, keepsLen: true},
		{name: "empty gzip body", body: []byte{}, enc: "gzip", strict: true, want: "", keepsLen: true},
		{name: "gzip", body: gzipped(t, text), enc: "gzip", strict: true, want: text},
		{name: "x-gzip, any case and spaces", body: gzipped(t, text), enc: " X-GZIP ", strict: true, want: text},
		{name: "gzip named, lenient", body: gzipped(t, text), enc: "gzip", want: text},
		{name: "gzip named, already decoded, lenient", body: []byte(text), enc: "gzip", want: text},
		{name: "gzip named, one byte, lenient", body: []byte{0x1f}, enc: "gzip", want: "\x1f"},
		{name: "gzip named, not gzip, strict", body: []byte(text), enc: "gzip", strict: true, wantErr: "content-encoding is gzip but the body is not gzip data"},
		{name: "gzip magic, broken stream", body: []byte{0x1f, 0x8b, 0x00}, enc: "gzip", strict: true, wantErr: "decoding the gzip body: "},
		{name: "gzip, truncated data", body: gzipped(t, text)[:15], enc: "gzip", strict: true, wantErr: "decoding the gzip body: "},
		{name: "deflate zlib-wrapped", body: deflated(t, text, true), enc: "deflate", strict: true, want: text},
		{name: "deflate raw", body: deflated(t, text, false), enc: "deflate", strict: true, want: text},
		{name: "deflate, lenient: kept as is", body: []byte(text), enc: "deflate", want: text},
		{name: "brotli, strict", body: []byte("xx"), enc: "br", strict: true, wantErr: "the body is br-encoded, which the importer cannot decode"},
		{name: "brotli, lenient, plain", body: []byte(text), enc: "br", want: text},
		{name: "unknown encoding over gzip bytes, lenient", body: gzipped(t, text), enc: "zstd", wantErr: "the body is zstd-encoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{"Content-Length": {"99"}}
			if tt.enc != "" {
				h.Set("Content-Encoding", tt.enc)
			}
			got, err := decodeBody(tt.body, h, tt.strict)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, strings.Contains(err.Error(), tt.wantErr), "error %q, want it to contain %q", err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.Empty(t, h.Get("Content-Encoding"), "the encoding header is dropped")
			if tt.keepsLen {
				assert.Equal(t, "99", h.Get("Content-Length"))
			} else {
				assert.Empty(t, h.Get("Content-Length"), "a decoded body's length no longer holds")
			}
		})
	}
}
