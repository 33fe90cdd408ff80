package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// --oracle chooses the checks: a run whose only failing check is a
// regression one (testdata/oracle: a delta count metis's chunking does
// not give) fails under all and regression, and passes under contract,
// which a certificate holds an adapter to.
func TestRunOracle(t *testing.T) {
	dirs := []string{"--scenarios", "testdata/oracle/scenarios", "--cassettes", root + "/cassettes", "--goldens", root + "/goldens", "--report-dir", ""}
	for _, tc := range []struct {
		oracle []string
		code   int
		want   string
	}{
		{nil, exitFailed, "event_chunks: 3 text.delta, want 9"},
		{[]string{"--oracle", "all"}, exitFailed, "0 passed, 1 failed"},
		{[]string{"--oracle", "regression"}, exitFailed, "event_chunks: 3 text.delta, want 9"},
		{[]string{"--oracle", "contract"}, exitOK, "1 passed, 0 failed, 0 skipped"},
	} {
		code, stdout, stderr := conform(t, append(append([]string{"run"}, tc.oracle...), dirs...)...)
		assert.Equal(t, tc.code, code, "%v: %s%s", tc.oracle, stdout, stderr)
		assert.Contains(t, stdout, tc.want, "%v", tc.oracle)
	}
	code, stdout, _ := conform(t, append([]string{"run", "--oracle", "regression"}, dirs...)...)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stdout, "--oracle regression -v", "the re-run command keeps the oracle")
}

// --oracle takes all, contract or regression, and writes no golden
// under one oracle alone.
func TestRunOracleErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--oracle", "both"}, `--oracle "both": want one of all, contract, regression`},
		{[]string{"run", "--oracle", "contract", "--update"}, "--oracle contract: --update and --record write goldens"},
		{[]string{"run", "--oracle", "regression", "--record", "missing"}, "--oracle regression: --update and --record write goldens"},
	} {
		code, _, stderr := conform(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}
