// Package buildinfo says which metis is running: the module version and
// the VCS revision it was built from, read from the binary's build
// information (runtime/debug), and the Go version. `conform version`
// prints it and every report.json carries it: always metis's own, also
// when metis is a dependency of another program.
package buildinfo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// Module is metis's module path.
const Module = "github.com/metis-llm/metis"

// Info identifies a build of metis.
type Info struct {
	// Version is the module version: a release tag, a pseudo-version
	// stamped by `go build` from the checkout, or "(devel)" when the build
	// carried none (`go run`, `go test`).
	Version string `json:"version"`
	// Revision is metis's VCS commit, "" when unknown; Modified says the
	// working tree had uncommitted changes. RevisionFrom says where they
	// came from: "build" (stamped into the binary by `go build`),
	// "module" (the commit a pseudo-version of the metis dependency
	// names, abbreviated as the version does) or "git" (read from metis's
	// own checkout in the working directory, because the binary carries
	// none, as under `go run`).
	Revision     string `json:"revision,omitempty"`
	Modified     bool   `json:"modified,omitempty"`
	RevisionFrom string `json:"revision_from,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"go_version"`
}

// Read returns the running binary's Info: metis's own, never that of
// the program metis is built into. When metis is the main module it is
// the main module's version and VCS stamp; when the binary carries no
// stamp (`go run`, `go test`) and the working directory is inside
// metis's own checkout (the nearest go.mod declares metis's module path),
// the revision comes from git there, with a short timeout. When metis is
// a dependency (a third party certifying its adapter in its own go test)
// it is the version of the metis dependency, and the revision its
// pseudo-version names, if any: the checkout around such a binary is
// not metis's, so git is never asked. The answer is read once per
// process.
func Read() Info {
	once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			bi = &debug.BuildInfo{GoVersion: runtime.Version()}
		}
		wd, _ := os.Getwd()
		info = read(bi, wd, gitRevision)
	})
	return info
}

var (
	once sync.Once
	info Info
)

// read is Read on bi with the working directory wd, asking git (a
// function of the checkout's directory) only in metis's own checkout.
func read(bi *debug.BuildInfo, wd string, git func(dir string) (string, bool)) Info {
	info := FromBuildInfo(bi)
	if info.Revision != "" || !isMain(bi) || (bi.Main.Version != "" && bi.Main.Version != "(devel)") {
		return info
	}
	if dir, ok := ownCheckout(wd); ok {
		if rev, modified := git(dir); rev != "" {
			info.Revision, info.Modified, info.RevisionFrom = rev, modified, "git"
		}
	}
	return info
}

// isMain reports whether metis is the main module of bi.
func isMain(bi *debug.BuildInfo) bool { return bi.Main.Path == Module || bi.Main.Path == "" }

// ownCheckout finds the module root around dir, the nearest directory
// with a go.mod, and reports whether that go.mod is metis's.
func ownCheckout(dir string) (string, bool) {
	for dir != "" {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			return dir, modfile.ModulePath(data) == Module
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}

// FromBuildInfo extracts Info from bi alone: the main module's version and
// VCS stamp when metis is the main module, else the metis dependency's
// version (its replacement's, when replaced by a version; "(devel)" when
// replaced by a directory) and the revision a pseudo-version names.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Version: "(devel)", GoVersion: bi.GoVersion}
	if isMain(bi) {
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
		if d.Path != Module {
			continue
		}
		switch {
		case d.Replace != nil && d.Replace.Version == "":
			// Replaced by a directory: the required version is a
			// placeholder, and the directory carries no revision.
			continue
		case d.Replace != nil:
			info.Version = d.Replace.Version
		case d.Version != "":
			info.Version = d.Version
		}
		if rev, err := module.PseudoVersionRev(info.Version); err == nil {
			info.Revision, info.RevisionFrom = rev, "module"
		}
	}
	return info
}

// gitRevision returns HEAD's commit in dir and whether the tree has
// changes, or "" when git or a checkout is not there.
func gitRevision(dir string) (rev string, modified bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	rev = strings.TrimSpace(string(out))
	// --no-optional-locks: status takes no index.lock to refresh the
	// index, so a git the timeout kills leaves none behind in the
	// checkout (where it would fail the user's next commit).
	cmd = exec.CommandContext(ctx, "git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = dir
	status, err := cmd.Output()
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
