package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// TestScrubLeavesCommittedCassettes: every committed cassette is already
// scrubbed, so scrubbing it again (both passes, over the whole
// recording) changes no request or response body: the scrubber touches
// credentials, not the wire format under test, and re-recording
// unchanged traffic changes no file.
func TestScrubLeavesCommittedCassettes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every committed cassette scrubbed again, with no concurrency for the race detector; go test ./... runs it")
	}
	var files []string
	require.NoError(t, filepath.WalkDir(filepath.Join("..", "..", "cassettes"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	}))
	require.Greater(t, len(files), 100)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		if _, body, ok := bytes.Cut(data, []byte("\n---\n")); ok {
			data = body
		}
		var c cassette.Cassette
		require.NoError(t, yaml.Unmarshal(data, &c), p)
		s := newScrubber(nil, nil, nil)
		for _, in := range c.Interactions {
			require.NoError(t, s.collect(in))
		}
		for _, in := range c.Interactions {
			req, resp := in.Request.Body, in.Response.Body
			require.NoError(t, s.scrub(in))
			if in.Request.Body != req {
				t.Errorf("%s: interaction %d: the request body changed:\n was %.200q\n now %.200q", p, in.ID, req, in.Request.Body)
			}
			if in.Response.Body != resp {
				t.Errorf("%s: interaction %d: the response body changed:\n was %.200q\n now %.200q", p, in.ID, resp, in.Response.Body)
			}
		}
	}
}
