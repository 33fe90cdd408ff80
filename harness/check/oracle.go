package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

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
var checkOracles = map[string]scenario.Oracle{
	CheckError:        scenario.OracleContract,   // 000 §6.1 class; 004 §7 categories
	CheckErrorDetail:  scenario.OracleRegression, // metis's finer codes and texts
	CheckStopReason:   scenario.OracleContract,   // 000 §3.3
	CheckBlocks:       scenario.OracleContract,   // 001 §4.2, 000 §3.3
	CheckAttempts:     scenario.OracleContract,   // 000 §6.4: 1 + max_retries, bounded
	CheckEvents:       scenario.OracleContract,   // 000 §5.1–§5.2: starts, ends, completes
	CheckEventChunks:  scenario.OracleRegression, // how many deltas: the provider's and metis's cut
	CheckText:         scenario.OracleContract,   // 001 §4.2 content
	CheckTextMatch:    scenario.OracleContract,   // 001 §4.2 content
	CheckTextExact:    scenario.OracleContract,   // 001 §4.2 content
	CheckUsage:        scenario.OracleContract,   // 000 §7.1 reported counts (estimates: regression)
	CheckStream:       scenario.OracleContract,   // 000 §5.2, §5.3
	CheckBoth:         scenario.OracleContract,   // 000 §5: a stream equals its completion
	CheckRefused:      scenario.OracleContract,   // 000 §3.4 honest capabilities
	CheckReasons:      scenario.OracleRegression, // the session's refusal texts
	CheckProviderStop: scenario.OracleRegression, // metis's Response field; seeds need the canonical reason only
	CheckServedModel:  scenario.OracleContract,   // 000 §3.3 the model that served
	CheckStatus:       scenario.OracleContract,   // 001 §4.3, 000 §5.3
	CheckCost:         scenario.OracleContract,   // 000 §7.1: the core's price table over reported counts
	CheckSessionCost:  scenario.OracleContract,   // 000 §7.1
	CheckLogs:         scenario.OracleRegression, // log records are metis's texts and attribute names
	CheckLifecycle:    scenario.OracleContract,   // event types and fields (wait, reason: regression)
	CheckRequest:      scenario.OracleContract,   // wire fields the contract or the provider's API requires
	CheckWaits:        scenario.OracleRegression, // metis's backoff schedule
	CheckFragments:    scenario.OracleContract,   // 000 §5.4 fragments verbatim
	CheckRaw:          scenario.OracleContract,   // 004 §8.2 raw body verbatim (none given: regression)
	CheckProviderRaw:  scenario.OracleRegression, // 001 §6.5: opaque, the adapter's own
	CheckReload:       scenario.OracleContract,   // 001 §9 persistence round trip
	CheckSameAs:       scenario.OracleContract,   // 000 §2.1 substitutability
}

// OracleOf returns the oracle of the check named name: contract for a
// name it does not know, so that nothing unclassified escapes a
// certificate.
func OracleOf(name string) scenario.Oracle {
	if o, ok := checkOracles[name]; ok {
		return o
	}
	return scenario.OracleContract
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

// lifecycleOracle returns the oracle of a lifecycle expectation.
func lifecycleOracle(e scenario.ExpectLifecycle) scenario.Oracle {
	for _, f := range regressionLifecycleFields {
		if _, ok := e.Fields[f]; ok {
			return scenario.OracleRegression
		}
	}
	return scenario.OracleContract
}

// goldenOracles gives the oracle of each golden file. The transcript is
// contract once projected on its contract fields (ContractTranscript);
// compared byte for byte it is regression, as the other two always are.
var goldenOracles = map[string]scenario.Oracle{
	GoldenTranscript: scenario.OracleContract,
	GoldenRequests:   scenario.OracleRegression,
	GoldenEvents:     scenario.OracleRegression,
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
	return EncodeIndented(msgs)
}

// RegressionSkipReason is why a run of a scenario whose oracle is
// regression is skipped when only the contract is checked.
const RegressionSkipReason = "oracle: regression: the scenario checks only metis's own choices, not the contract"

// CompareContractGolden is the default Golden hook under OracleContract:
// it compares got, a projected transcript, with the projection of the
// golden file at path, and never rewrites it.
func CompareContractGolden(path string, got []byte) (string, error) {
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
// (ContractTranscript): the (-want +got) diff, "" when they agree. A
// diff starts with a line naming the differing fields
// (TranscriptFieldDiffs), which the run's finding message repeats.
//
// A cancelled turn's text and thinking are what had reached the caller
// when it stopped (000 §5.3), and where the stream was cut depends on how
// many deltas and usage updates the adapter's stream has (its own, as
// event counts are): a block of a cancelled assistant message in both
// transcripts whose text is a prefix of the other's is taken as the
// golden's (cutCancelledText).
func ContractGoldenDiff(want, got []byte) (string, error) {
	w, err := ContractTranscript(want)
	if err != nil {
		return "", fmt.Errorf("golden %w", err)
	}
	got = cutCancelledText(w, got)
	diff := GoldenDiff(w, got)
	if diff == "" {
		return "", nil
	}
	if line := contractFieldsLine(fieldDiffs(w, got)); line != "" {
		diff = line + "\n" + diff
	}
	return diff, nil
}

// cutCancelledText returns got, a projected transcript, with the text of
// each text or thinking block of a cancelled assistant message replaced
// by want's when one of the two texts is a prefix of the other (the same
// answer cut at another event). Anything else, and a got that does not
// decode, is returned as it is, for the diff to show.
func cutCancelledText(want, got []byte) []byte {
	var w, g []map[string]any
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.UseNumber()
	if dec.Decode(&w) != nil {
		return got
	}
	dec = json.NewDecoder(bytes.NewReader(got))
	dec.UseNumber()
	if dec.Decode(&g) != nil {
		return got
	}
	changed := false
	for i := 0; i < len(w) && i < len(g); i++ {
		if !cancelledAssistant(w[i]) || !cancelledAssistant(g[i]) {
			continue
		}
		wc, _ := w[i]["content"].([]any)
		gc, _ := g[i]["content"].([]any)
		for j := 0; j < len(wc) && j < len(gc); j++ {
			wb, _ := wc[j].(map[string]any)
			gb, _ := gc[j].(map[string]any)
			if wb == nil || gb == nil || wb["type"] != gb["type"] || (wb["type"] != "text" && wb["type"] != "thinking") {
				continue
			}
			wt, ok1 := wb["text"].(string)
			gt, ok2 := gb["text"].(string)
			if !ok1 || !ok2 || wt == gt || !(strings.HasPrefix(gt, wt) || strings.HasPrefix(wt, gt)) {
				continue
			}
			gb["text"] = wt
			changed = true
		}
	}
	if !changed {
		return got
	}
	out, err := EncodeIndented(g)
	if err != nil {
		return got
	}
	return out
}

// cancelledAssistant reports whether m is an assistant message whose
// status is cancelled.
func cancelledAssistant(m map[string]any) bool {
	md, _ := m["metadata"].(map[string]any)
	return m["role"] == "assistant" && md != nil && md["status"] == "cancelled"
}
