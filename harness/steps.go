package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/session"
)

// openFileStore gives the run's session a SQLite store in a fresh
// temporary directory, which finish removes, so that a reload step can
// reopen it.
func (r *run) openFileStore() error {
	dir, err := os.MkdirTemp("", "metis-conform-*")
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	r.tempDir = dir
	st, err := session.OpenStore(filepath.Join(dir, "sessions.db"))
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	r.fileStore = st
	r.sessOpts.Store = st
	return nil
}

// reload closes the session's store, reopens the file, loads the session
// from it and continues with the loaded session. The check requires the
// loaded session to equal the saved one: messages byte for byte, tool-id
// map, active model and routing.
func (r *run) reload(ctx context.Context) (check.Check, error) {
	c := check.Check{Name: check.CheckReload}
	if r.fileStore == nil {
		return c, errors.New("reload: the session has no file store (a history step replaced it)")
	}
	if err := r.sess.Err(); err != nil {
		return c, fmt.Errorf("reload: the session failed to persist: %w", err)
	}
	before, err := sessionSnapshot(r.sess)
	if err != nil {
		return c, fmt.Errorf("reload: %w", err)
	}
	path := r.fileStore.Path()
	if err := r.fileStore.Close(); err != nil {
		return c, fmt.Errorf("reload: closing the store: %w", err)
	}
	r.fileStore = nil
	st, err := session.OpenStore(path)
	if err != nil {
		return c, fmt.Errorf("reload: reopening the store: %w", err)
	}
	r.fileStore = st
	s, err := st.LoadSession(ctx, sessionID, r.sessOpts)
	if err != nil {
		return c, fmt.Errorf("reload: %w", err)
	}
	after, err := sessionSnapshot(s)
	if err != nil {
		return c, fmt.Errorf("reload: %w", err)
	}
	r.sess = s
	if diff := check.GoldenDiff(before, after); diff != "" {
		c.Message = "the reloaded session differs from the saved one (-saved +reloaded):\n" + diff
		return c, nil
	}
	c.OK = true
	return c, nil
}

// sessionSnapshot renders what a reload must keep: the active model, the
// tool-id map (its informative pairs) and every message.
func sessionSnapshot(s *session.Session) ([]byte, error) {
	// A pair mapping a canonical id to itself (the id another provider's
	// call was sent under) says nothing the map would not derive again.
	pairs := slices.DeleteFunc(s.ToolIDs().Pairs(), func(p adapters.ToolIDPair) bool { return p.ProviderID == p.Canonical })
	slices.SortFunc(pairs, func(a, b adapters.ToolIDPair) int {
		return strings.Compare(a.Canonical+a.Provider, b.Canonical+b.Provider)
	})
	return check.EncodeIndented(struct {
		Model    string                `json:"model"`
		ToolIDs  []adapters.ToolIDPair `json:"tool_ids"`
		Messages []canonical.Message   `json:"messages"`
	}{s.Model(), pairs, s.Messages()})
}

// ready runs a ready step: the adapter's readiness probe for the step's
// model (default the active one), through the run's wire and the pending
// fault, checked against the step's expect.
func (r *run) ready(ctx context.Context, st *scenario.Step) ([]check.Check, error) {
	inject := r.pendingInject
	r.pendingInject, r.pendingCancel = nil, nil
	model := st.Ready.Model
	if model == "" {
		model = r.sess.Model()
	}
	ad, err := r.adapterFor(model)
	if err != nil {
		return nil, err
	}
	obs := ad.(*observed)
	rd, ok := obs.Adapter.(adapters.Readier)
	if !ok {
		// The probe is optional (adapters.Readier; the stdio protocol's probe):
		// what this step checks does not apply to an adapter without one.
		return nil, &skipRun{reason: fmt.Sprintf("adapter %s has no readiness probe (adapters.Readier; over the stdio protocol, ready's probe: true), which is optional", obs.Name())}
	}
	w, err := r.arm(obs.Name(), r.resolveInject(inject, model), nil)
	if err != nil {
		return nil, err
	}
	defer w.disarm()
	sleeps := len(r.clock.Sleeps())
	err = rd.Ready(ctx, model)
	if ferr := r.transportFailure(); ferr != nil {
		return nil, ferr
	}
	l := check.TraceLine{Step: st.Index, Type: "ready", Model: model}
	if err != nil {
		l.Class, l.Code = canonical.ClassOf(err), canonical.CodeOf(err)
	}
	r.addTrace(l)
	e := r.expectFor(st.Expect, model)
	if e == nil {
		e = &scenario.Expect{}
	}
	d := r.stepData(st.Index, sleeps)
	checks := check.Errors(e.Error, err)
	return append(checks, check.Observed(e, &check.Outcome{}, d)...), nil
}

// expectReasons checks that every wanted text is in one of a swap
// refusal's reasons.
func expectReasons(want []string, err error) check.Check {
	c := check.Check{Name: check.CheckReasons, OK: true}
	var se *session.SwapError
	if !errors.As(err, &se) {
		c.OK, c.Message = false, "the swap was not refused, so it has no reasons"
		return c
	}
	var missing []string
	for _, w := range want {
		if !slices.ContainsFunc(se.Reasons, func(r string) bool { return strings.Contains(r, w) }) {
			missing = append(missing, fmt.Sprintf("%q", w))
		}
	}
	if len(missing) > 0 {
		c.OK = false
		c.Message = fmt.Sprintf("no reason mentions %s (reasons: %s)", strings.Join(missing, ", "), strings.Join(se.Reasons, "; "))
	}
	return c
}
