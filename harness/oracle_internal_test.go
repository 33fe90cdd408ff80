package harness

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// TestOracleFilter: under Config.Oracle contract, regression checks are
// dropped, so that their failure fails nothing; contract checks stay.
// Under regression, the reverse.
func TestOracleFilter(t *testing.T) {
	checks := func() []check.Check {
		return []check.Check{
			{Name: check.CheckStopReason, OK: true},
			{Name: check.CheckWaits, OK: false, Message: "waits [1s], want [2s]"},
			{Name: check.CheckUsage, OK: false, Oracle: scenario.OracleRegression},
			{Name: check.CheckLifecycle, OK: true, Oracle: scenario.OracleContract},
			{Name: "not-yet-classified", OK: true},
		}
	}
	tests := []struct {
		oracle scenario.Oracle
		want   []string
	}{
		{"", []string{"stop_reason:contract", "waits:regression", "usage:regression", "lifecycle:contract", "not-yet-classified:contract"}},
		{scenario.OracleAll, []string{"stop_reason:contract", "waits:regression", "usage:regression", "lifecycle:contract", "not-yet-classified:contract"}},
		{scenario.OracleContract, []string{"stop_reason:contract", "lifecycle:contract", "not-yet-classified:contract"}},
		{scenario.OracleRegression, []string{"waits:regression", "usage:regression"}},
	}
	for _, tt := range tests {
		cfg := Config{Oracle: tt.oracle}
		var got []string
		for _, c := range cfg.oracleChecks(checks()) {
			got = append(got, c.Name+":"+string(c.Oracle))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Oracle %q (-want +got):\n%s", tt.oracle, diff)
		}
	}
	for _, o := range scenario.RunOracles {
		if _, err := (&Config{Oracle: o}).checkOracle(); err != nil {
			t.Errorf("Config.Oracle %q: %v", o, err)
		}
	}
	if _, err := (&Config{Oracle: "both"}).checkOracle(); err == nil || !strings.Contains(err.Error(), `"all", "contract" or "regression"`) {
		t.Errorf("Config.Oracle both: error %v, want one naming all, contract and regression", err)
	}
}
