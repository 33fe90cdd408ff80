package certify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/harness/scenario"
)

// Profiles name what a certificate covers. Every scenario run belongs to
// exactly one, the first of these that applies to it:
//
//	swap       the run talks to more than one provider, or swaps model
//	errors     it injects a fault, expects a call or swap to fail, or
//	           appends a raw history (validation before the wire)
//	streaming  it cancels a call, or compares a streamed call with the
//	           same call unstreamed (call: {both: true})
//	thinking   it requires thinking or asks for it on a call
//	tools      it requires tools or offers some
//	core       everything else: plain calls, streamed or not, and their
//	           canonical output
//
// The rules read the scenario itself, so certification covers whatever
// the suite holds; the report shows each run's profile.
var Profiles = []string{ProfileCore, ProfileStreaming, ProfileTools, ProfileThinking, ProfileErrors, ProfileSwap}

// The profiles.
const (
	ProfileCore      = "core"
	ProfileStreaming = "streaming"
	ProfileTools     = "tools"
	ProfileThinking  = "thinking"
	ProfileErrors    = "errors"
	ProfileSwap      = "swap"
)

// ProfileOf returns the profile of the run of sc on matrix model.
func ProfileOf(sc *scenario.Scenario, model string) string {
	var swaps, faults, streams, thinks bool
	for _, st := range sc.Steps {
		switch st.Kind {
		case scenario.StepSwap:
			swaps = true
		case scenario.StepInject, scenario.StepHistory:
			faults = true
		case scenario.StepCancel:
			streams = true
		case scenario.StepCall:
			streams = streams || st.Call.Both
			thinks = thinks || st.Call.Thinking != nil
		}
		if st.Expect != nil && st.Expect.Error != nil {
			faults = true
		}
	}
	switch {
	case swaps || len(sc.Providers(model)) > 1:
		return ProfileSwap
	case faults:
		return ProfileErrors
	case streams:
		return ProfileStreaming
	case thinks || slices.Contains(sc.Requires, "thinking"):
		return ProfileThinking
	case len(sc.Tools) > 0 || slices.Contains(sc.Requires, "tools"):
		return ProfileTools
	}
	return ProfileCore
}

// ParseProfiles reads a comma-separated list of profile names ("" or
// "all" is every profile) and returns them in Profiles order.
func ParseProfiles(s string) ([]string, error) {
	if s == "" || s == "all" {
		return slices.Clone(Profiles), nil
	}
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(Profiles, name) {
			return nil, fmt.Errorf("unknown profile %q (profiles: %s)", name, strings.Join(Profiles, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Profiles, a) - slices.Index(Profiles, b) })
	return out, nil
}
