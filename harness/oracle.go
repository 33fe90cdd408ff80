package harness

import (
	"fmt"
	"slices"

	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
)

// checkOracle returns Config.Oracle, validated: "" is OracleBoth.
func (c *Config) checkOracle() (scenario.Oracle, error) {
	switch c.Oracle {
	case "", scenario.OracleBoth:
		return scenario.OracleBoth, nil
	case scenario.OracleContract:
		return scenario.OracleContract, nil
	}
	return "", fmt.Errorf("harness: Config.Oracle %q: want %q or %q", c.Oracle, scenario.OracleBoth, scenario.OracleContract)
}

// contractOnly reports whether the run checks the contract alone.
func (c *Config) contractOnly() bool { return c.Oracle == scenario.OracleContract }

// oracleChecks sets each check's oracle (OracleOf its name, unless it was
// set where it was built) and, when cfg checks the contract alone, drops
// the regression checks.
func (c *Config) oracleChecks(checks []check.Check) []check.Check {
	for i := range checks {
		if checks[i].Oracle == "" {
			checks[i].Oracle = check.OracleOf(checks[i].Name)
		}
	}
	if !c.contractOnly() {
		return checks
	}
	return slices.DeleteFunc(checks, func(ch check.Check) bool { return ch.Oracle != scenario.OracleContract })
}
