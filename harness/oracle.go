package harness

import (
	"fmt"
	"slices"

	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// checkOracle returns Config.Oracle, validated: "" is OracleAll.
func (c *Config) checkOracle() (scenario.Oracle, error) {
	switch c.Oracle {
	case "", scenario.OracleAll:
		return scenario.OracleAll, nil
	case scenario.OracleContract, scenario.OracleRegression:
		return c.Oracle, nil
	}
	return "", fmt.Errorf("harness: Config.Oracle %q: want %q, %q or %q", c.Oracle, scenario.OracleAll, scenario.OracleContract, scenario.OracleRegression)
}

// contractOnly reports whether the run checks the contract alone. Such a
// run also judges the adapter as a black box where the contract leaves
// the adapter its own policy (see Config.Oracle): its backoff from the
// wire, its swaps by the capabilities it declares.
func (c *Config) contractOnly() bool { return c.Oracle == scenario.OracleContract }

// oracleChecks sets each check's oracle (OracleOf its name, unless it was
// set where it was built) and, when cfg checks one oracle alone, drops
// the other's checks.
func (c *Config) oracleChecks(checks []check.Check) []check.Check {
	for i := range checks {
		if checks[i].Oracle == "" {
			checks[i].Oracle = check.OracleOf(checks[i].Name)
		}
	}
	switch c.Oracle {
	case scenario.OracleContract, scenario.OracleRegression:
		return slices.DeleteFunc(checks, func(ch check.Check) bool { return ch.Oracle != c.Oracle })
	}
	return checks
}
