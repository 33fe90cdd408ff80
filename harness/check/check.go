package check

import "github.com/metis-llm/metis/harness/scenario"

// Check is one verified property of a step: an expectation, the stream
// invariants, the stream-versus-complete comparison. Oracle says whether
// it checks the contract or metis's own choices (OracleOf).
type Check struct {
	Name    string          `json:"name"`
	OK      bool            `json:"ok"`
	Message string          `json:"message,omitempty"`
	Oracle  scenario.Oracle `json:"oracle,omitempty"`
}
