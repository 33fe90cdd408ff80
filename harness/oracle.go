package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/metis-llm/metis/canonical"
)

// Oracle names who decides whether a check passes. The contract is what
// the seeds (000 adapter contract, 001 canonical format, 003 translation,
// 004 conformance fixtures) require of any adapter; the regression is
// what metis's own adapters happen to do — byte shapes of their wire
// requests, their event chunking, their backoff schedule, their log and
// error texts. conform run checks both (--oracle chooses); a certificate
// checks only the contract (docs/oracles.md has the table).
type Oracle string

// Oracles.
const (
	// OracleContract: what any correct adapter must satisfy.
	OracleContract Oracle = "contract"
	// OracleRegression: metis's own choices, checked so that they do not
	// change unnoticed, never asked of another adapter.
	OracleRegression Oracle = "regression"
	// OracleAll, as Config.Oracle (or its zero value), checks both.
	OracleAll Oracle = "all"
)

// RunOracles are the values Config.Oracle takes (besides "", which is
// OracleAll): conform run's --oracle.
var RunOracles = []Oracle{OracleAll, OracleContract, OracleRegression}

// Check names of the regression halves of expectations that mix both
// oracles (see checkOracles).
const (
	// CheckErrorDetail is the part of expect.error the contract leaves
	// open: a finer code the seeds do not name, and the message text.
	CheckErrorDetail = "error_detail"
	// CheckEventChunks is the part of expect.events that depends on how
	// the stream was cut into deltas.
	CheckEventChunks = "event_chunks"
)

// checkOracles gives the oracle of every check, by name. Checks whose
// expectation mixes both oracles are split into two names (error and
// error_detail, events and event_chunks); usage and lifecycle are set
// per expectation where they are built (an estimated usage, a lifecycle
// field the contract leaves open).
var checkOracles = map[string]Oracle{
	CheckError:        OracleContract,   // 000 §6.1 class; 004 §7 categories
	CheckErrorDetail:  OracleRegression, // metis's finer codes and texts
	CheckStopReason:   OracleContract,   // 000 §3.3
	CheckBlocks:       OracleContract,   // 001 §4.2, 000 §3.3
	CheckAttempts:     OracleContract,   // 000 §6.4: 1 + max_retries, bounded
	CheckEvents:       OracleContract,   // 000 §5.1–§5.2: starts, ends, completes
	CheckEventChunks:  OracleRegression, // how many deltas: the provider's and metis's cut
	CheckText:         OracleContract,   // 001 §4.2 content
	CheckTextMatch:    OracleContract,   // 001 §4.2 content
	CheckTextExact:    OracleContract,   // 001 §4.2 content
	CheckUsage:        OracleContract,   // 000 §7.1 reported counts (estimates: regression)
	CheckStream:       OracleContract,   // 000 §5.2, §5.3
	CheckBoth:         OracleContract,   // 000 §5: a stream equals its completion
	CheckRefused:      OracleContract,   // 000 §3.4 honest capabilities
	CheckReasons:      OracleRegression, // the session's refusal texts
	CheckProviderStop: OracleRegression, // metis's Response field; seeds need the canonical reason only
	CheckServedModel:  OracleContract,   // 000 §3.3 the model that served
	CheckStatus:       OracleContract,   // 001 §4.3, 000 §5.3
	CheckCost:         OracleContract,   // 000 §7.1: the core's price table over reported counts
	CheckSessionCost:  OracleContract,   // 000 §7.1
	CheckLogs:         OracleRegression, // log records are metis's texts and attribute names
	CheckLifecycle:    OracleContract,   // event types and fields (wait, reason: regression)
	CheckRequest:      OracleContract,   // wire fields the contract or the provider's API requires
	CheckWaits:        OracleRegression, // metis's backoff schedule
	CheckFragments:    OracleContract,   // 000 §5.4 fragments verbatim
	CheckRaw:          OracleContract,   // 004 §8.2 raw body verbatim (none given: regression)
	CheckProviderRaw:  OracleRegression, // 001 §6.5: opaque, the adapter's own
	CheckReload:       OracleContract,   // 001 §9 persistence round trip
	CheckSameAs:       OracleContract,   // 000 §2.1 substitutability
}

// OracleOf returns the oracle of the check named name: contract for a
// name it does not know, so that nothing unclassified escapes a
// certificate.
func OracleOf(name string) Oracle {
	if o, ok := checkOracles[name]; ok {
		return o
	}
	return OracleContract
}

// contractCodes are the error codes the seeds name (004 §7's
// provider_invalid_model, provider_model_not_loaded and
// provider_invalid_response); every other code is metis's finer
// distinction within a class.
var contractCodes = []string{canonical.CodeModelNotFound, canonical.CodeModelNotLoaded, canonical.CodeInvalidResponse}

// chunkEvents are the stream events whose number depends on how the
// stream was cut: only "none of them" (a count of 0) is the contract's.
var chunkEvents = []canonical.EventType{
	canonical.EventTextDelta, canonical.EventThinkingDelta, canonical.EventToolUseInput, canonical.EventUsageUpdate,
}

// regressionLifecycleFields are the lifecycle fields whose values are
// metis's choices: the backoff wait and the reason text.
var regressionLifecycleFields = []string{"wait", "reason"}

// oracle returns the oracle of a lifecycle expectation.
func (e ExpectLifecycle) oracle() Oracle {
	for _, f := range regressionLifecycleFields {
		if _, ok := e.Fields[f]; ok {
			return OracleRegression
		}
	}
	return OracleContract
}

// checkOracle returns Config.Oracle, validated: "" is OracleAll.
func (c *Config) checkOracle() (Oracle, error) {
	switch c.Oracle {
	case "", OracleAll:
		return OracleAll, nil
	case OracleContract, OracleRegression:
		return c.Oracle, nil
	}
	return "", fmt.Errorf("harness: Config.Oracle %q: want %q, %q or %q", c.Oracle, OracleAll, OracleContract, OracleRegression)
}

// contractOnly reports whether the run checks the contract alone. Such a
// run also judges the adapter as a black box where the contract leaves
// the adapter its own policy (see Config.Oracle): its backoff from the
// wire, its swaps by the capabilities it declares.
func (c *Config) contractOnly() bool { return c.Oracle == OracleContract }

// oracleChecks sets each check's oracle (OracleOf its name, unless it was
// set where it was built) and, when cfg checks one oracle alone, drops
// the other's checks.
func (c *Config) oracleChecks(checks []Check) []Check {
	for i := range checks {
		if checks[i].Oracle == "" {
			checks[i].Oracle = OracleOf(checks[i].Name)
		}
	}
	switch c.Oracle {
	case OracleContract, OracleRegression:
		return slices.DeleteFunc(checks, func(ch Check) bool { return ch.Oracle != c.Oracle })
	}
	return checks
}

// goldenOracles gives the oracle of each golden file. The transcript is
// contract once projected on its contract fields (ContractTranscript);
// compared byte for byte it is regression, as the other two always are.
var goldenOracles = map[string]Oracle{
	GoldenTranscript: OracleContract,
	GoldenRequests:   OracleRegression,
	GoldenEvents:     OracleRegression,
}

// ContractTranscript projects a transcript.json on what seed 001 asks of
// any adapter: every message's id, session, role, content blocks (text,
// tool calls with their ids, names and inputs, tool results, images,
// thinking with its signature), created_at, schema_version and metadata
// — except provider_raw (001 §6.5: opaque, the adapter's own), a usage
// the adapter estimated (000 §7.2: a MAY, metis's policy) and a cancelled
// turn's usage (what had reached the caller when it stopped, or an
// estimate: the adapter's policy). The result is
// indented JSON with sorted keys, so that two projections compare byte
// for byte.
func ContractTranscript(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var msgs []map[string]any
	if err := dec.Decode(&msgs); err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	for _, m := range msgs {
		md, _ := m["metadata"].(map[string]any)
		if md == nil {
			continue
		}
		delete(md, "provider_raw")
		if u, _ := md["usage"].(map[string]any); u != nil && u["estimated"] == true {
			delete(md, "usage")
		}
		if md["status"] == "cancelled" {
			// A cancelled turn's usage is what had reached the caller
			// when it stopped, or an estimate (000 §5.3, §7.2): when the
			// adapter surfaces the provider's counts, and whether it
			// estimates, is its own policy.
			delete(md, "usage")
		}
	}
	if msgs == nil {
		msgs = []map[string]any{}
	}
	return encodeIndented(msgs)
}

// RegressionSkipReason is why a run of a scenario whose oracle is
// regression is skipped when only the contract is checked.
const RegressionSkipReason = "oracle: regression: the scenario checks only metis's own choices, not the contract"

// compareContractGolden is the default Golden hook under OracleContract:
// it compares got, a projected transcript, with the projection of the
// golden file at path, and never rewrites it.
func compareContractGolden(path string, got []byte) (string, error) {
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return GoldenDiff(nil, got), fmt.Errorf("%w %s", ErrNoGolden, path)
	}
	if err != nil {
		return "", fmt.Errorf("reading golden: %w", err)
	}
	return ContractGoldenDiff(want, got)
}

// ContractGoldenDiff compares a projected transcript got with want, a
// transcript.json golden file as written, on the contract fields alone
// (ContractTranscript): the (-want +got) diff, "" when they agree.
func ContractGoldenDiff(want, got []byte) (string, error) {
	w, err := ContractTranscript(want)
	if err != nil {
		return "", fmt.Errorf("golden %w", err)
	}
	return GoldenDiff(w, got), nil
}
