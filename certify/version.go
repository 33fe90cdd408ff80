package certify

import (
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/internal/buildinfo"
)

// Metis returns the running metis's version (buildinfo.Read): the metis
// module's version in the build (the dependency's version when a third
// party's test binary links metis), its VCS revision when known, and the
// Go version.
func Metis() MetisInfo {
	info := buildinfo.Read()
	rev := info.Revision
	if rev != "" && info.Modified {
		rev += "+modified"
	}
	return MetisInfo{Version: info.Version, Revision: rev, GoVersion: info.GoVersion}
}

// evidenceOf returns a failed run's wire requests and event trace, by
// file name, as the harness kept them.
func evidenceOf(res harness.ScenarioResult) map[string][]byte {
	out := map[string][]byte{}
	if len(res.WireRequests) > 0 {
		out[check.GoldenRequests] = res.WireRequests
	}
	if len(res.Events) > 0 {
		out[check.GoldenEvents] = res.Events
	}
	return out
}
