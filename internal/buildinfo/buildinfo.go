// Package buildinfo says which metis is running: the module version and
// the VCS revision it was built from, read from the binary's build
// information (runtime/debug), and the Go version. `conform version`
// prints it and every report.json carries it.
package buildinfo

import (
	"context"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Module is metis's module path.
const Module = "github.com/metis-llm/metis"

// Info identifies a build of metis.
type Info struct {
	// Version is the module version: a release tag, a pseudo-version
	// stamped by `go build` from the checkout, or "(devel)" when the build
	// carried none (`go run`, `go test`).
	Version string `json:"version"`
	// Revision is the VCS commit, "" when unknown; Modified says the
	// working tree had uncommitted changes. RevisionFrom says where they
	// came from: "build" (stamped into the binary by `go build`) or "git"
	// (read from the checkout in the working directory, because the
	// binary carries none, as under `go run`).
	Revision     string `json:"revision,omitempty"`
	Modified     bool   `json:"modified,omitempty"`
	RevisionFrom string `json:"revision_from,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"go_version"`
}

// Read returns the running binary's Info. When metis is a dependency of
// the main module (a third party certifying its adapter), Version is the
// version of the metis dependency. When the binary carries no VCS
// revision, Read asks git about the working directory's checkout, with a
// short timeout; when that fails too, Revision stays empty. The answer is
// read once per process.
func Read() Info {
	once.Do(func() { info = read() })
	return info
}

var (
	once sync.Once
	info Info
)

func read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{GoVersion: runtime.Version()}
	}
	info := FromBuildInfo(bi)
	if info.Revision == "" {
		info.Revision, info.Modified = gitRevision()
		if info.Revision != "" {
			info.RevisionFrom = "git"
		}
	}
	return info
}

// FromBuildInfo extracts Info from bi alone.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Version: "(devel)", GoVersion: bi.GoVersion}
	main := bi.Main.Path == Module || bi.Main.Path == ""
	if main {
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision, info.RevisionFrom = s.Value, "build"
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
		return info
	}
	for _, d := range bi.Deps {
		if d.Path == Module {
			info.Version = d.Version
			if d.Replace != nil && d.Replace.Version != "" {
				info.Version = d.Replace.Version
			}
		}
	}
	return info
}

// gitRevision returns HEAD's commit and whether the tree has changes, or
// "" when git or a checkout is not there.
func gitRevision() (rev string, modified bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	rev = strings.TrimSpace(string(out))
	status, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output()
	return rev, err == nil && len(strings.TrimSpace(string(status))) > 0
}

// String is the one-line form `conform version` prints:
// "metis v1.2.3 (revision 0123456789ab, modified) go1.26.8".
func (i Info) String() string {
	var sb strings.Builder
	sb.WriteString("metis " + i.Version + " (")
	if i.Revision == "" {
		sb.WriteString("revision unknown")
	} else {
		sb.WriteString("revision " + i.Revision)
		if i.Modified {
			sb.WriteString(", modified")
		}
	}
	sb.WriteString(") " + i.GoVersion)
	return sb.String()
}
