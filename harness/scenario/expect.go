package scenario

import (
	"fmt"
	"maps"

	"github.com/metis-llm/metis/canonical"
	"github.com/shopspring/decimal"
)

// Refine returns e with the PerWire entry for wire, the PerModel
// entries naming one of keys (the call's model, its column names and its
// provider) and the PerRun entries naming one of runKeys (the same for
// the run's matrix model) applied, in that order.
func (e *Expect) Refine(wire string, keys, runKeys []string) *Expect {
	if e == nil || (e.PerWire == nil && e.PerModel == nil && e.PerRun == nil) {
		return e
	}
	out := *e
	out.PerWire, out.PerModel, out.PerRun = nil, nil, nil
	if w, ok := e.PerWire[wire]; ok {
		out = merge(out, w.Refine(wire, keys, runKeys))
	}
	for _, k := range keys {
		if m, ok := e.PerModel[k]; ok {
			out = merge(out, m.Refine(wire, keys, runKeys))
		}
	}
	for _, k := range runKeys {
		if m, ok := e.PerRun[k]; ok {
			out = merge(out, m.Refine(wire, keys, runKeys))
		}
	}
	return &out
}

// merge returns base with every field that over sets replaced.
func merge(base Expect, over *Expect) Expect {
	if over == nil {
		return base
	}
	if over.StopReason != "" {
		base.StopReason = over.StopReason
	}
	if over.ProviderStopReason != "" {
		base.ProviderStopReason = over.ProviderStopReason
	}
	if over.ServedModel != "" {
		base.ServedModel = over.ServedModel
	}
	if over.Blocks != nil {
		base.Blocks = over.Blocks
	}
	if over.Error != nil {
		base.Error = over.Error
	}
	if over.Attempts != nil {
		base.Attempts = over.Attempts
	}
	if over.Events != nil {
		base.Events = maps.Clone(base.Events)
		if base.Events == nil {
			base.Events = map[canonical.EventType]int{}
		}
		maps.Copy(base.Events, over.Events)
	}
	if over.TextContains != nil {
		base.TextContains = over.TextContains
	}
	if over.TextMatches != nil {
		base.TextMatches = over.TextMatches
	}
	if over.Refused {
		base.Refused = true
	}
	if over.Reasons != nil {
		base.Reasons = over.Reasons
	}
	if over.Status != "" {
		base.Status = over.Status
	}
	if over.Text != nil {
		base.Text = over.Text
	}
	if over.Usage != nil {
		base.Usage = over.Usage
	}
	if over.Cost != nil {
		base.Cost = over.Cost
	}
	if over.SessionCost != "" {
		base.SessionCost = over.SessionCost
	}
	if over.Logs != nil {
		base.Logs = over.Logs
	}
	if over.Lifecycle != nil {
		base.Lifecycle = over.Lifecycle
	}
	if over.Requests != nil {
		base.Requests = over.Requests
	}
	if over.Waits != nil {
		base.Waits = over.Waits
	}
	if over.Fragments != "" {
		base.Fragments = over.Fragments
	}
	if over.Raw != nil {
		base.Raw = over.Raw
	}
	if over.ProviderRaw != nil {
		base.ProviderRaw = over.ProviderRaw
	}
	return base
}

// ParseDecimal reads an exact decimal such as "0.000654".
func ParseDecimal(s string) (decimal.Decimal, error) {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q is not a decimal number", s)
	}
	return d, nil
}
