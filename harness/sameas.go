package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/session"
)

// sameAs runs the scenario again on its same_as model, without goldens,
// and requires the two final transcripts to be equal modulo what
// substitutability allows to differ (substitutable).
func (r *run) sameAs(ctx context.Context, res *ScenarioResult) {
	ref := r.sc.SameAs
	fail := func(format string, args ...any) {
		res.Status = StatusFail
		res.Reason = "same_as: " + fmt.Sprintf(format, args...)
		res.Findings = append(res.Findings, Finding{ID: "same_as", Level: LevelError, Step: -1, Message: res.Reason})
	}
	if !slices.Contains(r.sc.Models, ref) {
		fail("%s is not in the scenario's matrix (%s)", ref, strings.Join(r.sc.Models, ", "))
		return
	}
	cfg := *r.cfg
	cfg.NoGoldens = true
	other := newRun(&cfg, r.sc, ref, r.reg)
	var ores ScenarioResult
	if r.sc.HasReload() {
		if err := other.openFileStore(); err != nil {
			fail("%v", err)
			return
		}
	}
	other.sess = session.New(other.sessOpts)
	ok := other.execSafely(ctx, &ores)
	defer other.finish(&ores)
	if !ok || ores.Status == StatusFail {
		fail("the run on %s failed: %s", ref, ores.Reason)
		return
	}
	want, err1 := substitutable(other.sess.Messages())
	got, err2 := substitutable(r.sess.Messages())
	if err1 != nil || err2 != nil {
		fail("rendering transcripts: %v", firstErr(err1, err2))
		return
	}
	if diff := check.GoldenDiff(want, got); diff != "" {
		res.Status = StatusFail
		res.Reason = fmt.Sprintf("same_as: the transcript differs from the one on %s", ref)
		res.Findings = append(res.Findings, Finding{ID: "same_as", Level: LevelError, Step: -1,
			Message: res.Reason + " (-" + ref + " +" + r.model + ")", Diff: diff})
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// substitutable renders a transcript for comparison across models (000
// §10.2.1): message and tool ids renumbered, and without what legitimately
// differs between providers — metadata model, served model, provider, usage,
// provider_raw and the routing's chosen model, thinking blocks (which
// some providers drop) and signatures.
func substitutable(msgs []canonical.Message) ([]byte, error) {
	data, err := json.Marshal(msgs)
	if err != nil {
		return nil, err
	}
	var docs []map[string]any
	if err := json.Unmarshal(data, &docs); err != nil {
		return nil, err
	}
	for _, m := range docs {
		if md, ok := m["metadata"].(map[string]any); ok {
			for _, k := range []string{"model", "served_model", "provider", "usage", "provider_raw"} {
				delete(md, k)
			}
			if rt, ok := md["routing"].(map[string]any); ok {
				delete(rt, "chosen_model")
			}
		}
		blocks, _ := m["content"].([]any)
		kept := blocks[:0]
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if t, _ := bm["type"].(string); t == string(canonical.BlockThinking) || t == string(canonical.BlockRedactedThinking) {
				continue
			}
			kept = append(kept, b)
		}
		if blocks != nil {
			m["content"] = kept
		}
	}
	out, err := check.EncodeIndented(docs)
	if err != nil {
		return nil, err
	}
	return check.NewNormalizer().Apply(out), nil
}
