package harness

import (
	"fmt"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/compensate"
	"github.com/metis-llm/metis/harness/scenario"
)

// standsIn reports whether a call for a model the registry puts on
// another adapter than the run's model goes to the run model's adapter
// instead: when the scenario's compensations turn tier_stand_in on, so
// that the stand-in (or the adapter's refusal) answers it.
func (r *run) standsIn(mc adapters.ModelConfig) bool {
	if on, _ := r.sc.Compensations["tier_stand_in"].(bool); !on {
		return false
	}
	own, err := r.reg.Resolve(r.model)
	return err == nil && own.Adapter != mc.Adapter
}

// compensate wraps a, one of the run's adapters, in package compensate
// when the scenario has a compensations: block, with the run's clock and
// logger, over the run's registry in which only the run's model carries
// the block; it returns a unchanged otherwise. r.mu is held.
func (r *run) compensate(a adapters.Adapter) (adapters.Adapter, error) {
	if r.sc.Compensations == nil {
		return a, nil
	}
	if r.compReg == nil {
		c, err := scenario.ParseCompensations(r.sc.File, r.sc.Compensations)
		if err != nil {
			return nil, err
		}
		if r.compReg, err = r.reg.WithCompensations(r.model, c); err != nil {
			return nil, fmt.Errorf("compensations for %s: %w", r.model, err)
		}
	}
	return compensate.Wrap(a, r.compReg, compensate.Options{Clock: r.clock, Logger: r.logs.logger()}), nil
}
