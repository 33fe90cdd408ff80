package scenario

// Oracle names who decides whether a check passes. The contract is what
// the seeds (000 adapter contract, 001 canonical format, 003 translation,
// 004 conformance fixtures) require of any adapter; the regression is
// what metis's own adapters happen to do — byte shapes of their wire
// requests, their event chunking, their backoff schedule, their log and
// error texts. conform run checks both (--oracle chooses); a certificate checks only the
// contract (docs/oracles.md has the table).
type Oracle string

// Oracles.
const (
	// OracleContract: what any correct adapter must satisfy.
	OracleContract Oracle = "contract"
	// OracleRegression: metis's own choices, checked so that they do not
	// change unnoticed, never asked of another adapter.
	OracleRegression Oracle = "regression"
	// OracleAll, as a run's oracle (harness.Config.Oracle, or its zero
	// value), checks both.
	OracleAll Oracle = "all"
)

// RunOracles are the values a run's oracle takes (besides "", which is
// OracleAll): conform run's --oracle.
var RunOracles = []Oracle{OracleAll, OracleContract, OracleRegression}
