package recordcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
)

const vcrpySample = "../../harness/importer/testdata/vcrpy/pydantic-ai-anthropic-thinking-stream.yaml"

func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"import", "--cassettes", dir, "--scenario", "real/x", "--provider", "anthropic",
		"--model", "anthropic:claude-sonnet-4-6", vcrpySample}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	out := filepath.Join(dir, "anthropic", "real", "x.yaml")
	assert.Equal(t, "imported 1 interaction(s) from "+vcrpySample+" (vcrpy) into "+out+" (source imported, match endpoint)\n", stdout.String())
	p, err := record.ReadProvenance(out)
	require.NoError(t, err)
	assert.Equal(t, "anthropic:claude-sonnet-4-6", p.Model)

	stdout.Reset()
	code = run(context.Background(), []string{"import", "-o", out, "--force", "--scenario", "real/x", "--provider", "anthropic",
		"--model", "anthropic:claude-sonnet-4-6", vcrpySample}, &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "unchanged "+out)
}

func TestImportCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("interactions:\n- request: {method: GET}\n  response: {}\n"), 0o644))
	out := filepath.Join(dir, "out.yaml")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import"}, 2, "no input given"},
		{[]string{"import", vcrpySample}, 2, "give --out, or --scenario and --provider"},
		{[]string{"import", "--nope", vcrpySample}, 2, "unknown flag: --nope"},
		{[]string{"import", "-o", out, bad}, 1, "bad.yaml:2: interactions[0].request: has neither \"uri\" (vcrpy) nor \"url\" (go-vcr)\nnothing was written"},
		{[]string{"import", "-o", out, "--format", "pcap", vcrpySample}, 1, `unknown format "pcap"`},
		{[]string{"import", "-o", out, filepath.Join(dir, "missing")}, 1, "missing: cannot read it"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		assert.Equal(t, tt.code, code, "%v: %s", tt.args, stderr.String())
		assert.Contains(t, stderr.String(), tt.want, tt.args)
		assert.NoFileExists(t, out)
	}
}
