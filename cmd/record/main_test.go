package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// record is conform record under its own name: the same flags, the same
// import subcommand, its own name in messages.
func TestRecordIsConformRecord(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string // a prefix
		stderr string // a prefix
	}{
		{[]string{"--help"}, 0, "usage: record [flags]\n\nRecord scenario runs", ""},
		{[]string{"import", "--help"}, 0, "usage: record import [flags] INPUT...\n", ""},
		{[]string{"--nope"}, 2, "", "record: unknown flag: --nope\n\nusage: record [flags]\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		assert.Equal(t, tt.code, code, "%v", tt.args)
		assert.True(t, strings.HasPrefix(stdout.String(), tt.stdout), "%v: stdout %q", tt.args, stdout.String())
		assert.True(t, strings.HasPrefix(stderr.String(), tt.stderr), "%v: stderr %q", tt.args, stderr.String())
	}
}
