package certify

import (
	"runtime"
	"runtime/debug"

	"github.com/metis-llm/metis/harness"
)

// module is metis's module path.
const module = "github.com/metis-llm/metis"

// Metis returns the running metis's version: the metis module's version
// in the build (a dependency's version when a third party's test binary
// links it), its VCS revision when stamped, and the Go version.
func Metis() MetisInfo {
	info := MetisInfo{Version: "(devel)", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	if bi.Main.Path == module {
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				info.Revision = s.Value
			}
		}
		return info
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			info.Version = d.Version
			if d.Replace != nil {
				info.Version += " => " + d.Replace.Path
			}
		}
	}
	return info
}

// evidenceOf returns a failed run's wire requests and event trace, by
// file name.
func evidenceOf(harness.ScenarioResult) map[string][]byte { return nil }
