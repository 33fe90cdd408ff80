package buildinfo

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want Info
	}{
		{"go build in a checkout", debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: Module, Version: "v0.0.0-20261124191334-eb25c9b20025+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "eb25c9b200253c04a7bfbfbeabab0d554948db2f"},
				{Key: "vcs.modified", Value: "true"}}},
			Info{Version: "v0.0.0-20261124191334-eb25c9b20025+dirty", Revision: "eb25c9b200253c04a7bfbfbeabab0d554948db2f", Modified: true, RevisionFrom: "build", GoVersion: "go1.26.8"}},
		{"go run or go test", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: Module, Version: "(devel)"}},
			Info{Version: "(devel)", GoVersion: "go1.26.8"}},
		{"a release", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: Module, Version: "v1.2.3"}},
			Info{Version: "v1.2.3", GoVersion: "go1.26.0"}},
		{"metis as a dependency", debug.BuildInfo{GoVersion: "go1.26.8",
			Main:     debug.Module{Path: "example.com/certifier", Version: "(devel)"},
			Deps:     []*debug.Module{{Path: "github.com/other/x", Version: "v9.0.0"}, {Path: Module, Version: "v1.4.0"}},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "ffffffffffffffffffffffffffffffffffffffff"}}},
			Info{Version: "v1.4.0", GoVersion: "go1.26.8"}},
		{"metis replaced", debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: "example.com/certifier"},
			Deps: []*debug.Module{{Path: Module, Version: "v1.4.0", Replace: &debug.Module{Path: "../metis", Version: "v1.4.1"}}}},
			Info{Version: "v1.4.1", GoVersion: "go1.26.8"}},
		{"metis at a pseudo-version, as a dependency", debug.BuildInfo{GoVersion: "go1.26.8",
			Main:     debug.Module{Path: "example.com/certifier", Version: "(devel)"},
			Deps:     []*debug.Module{{Path: Module, Version: "v0.1.1-0.20261124191334-eb25c9b20025"}},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "ffffffffffffffffffffffffffffffffffffffff"}, {Key: "vcs.modified", Value: "true"}}},
			Info{Version: "v0.1.1-0.20261124191334-eb25c9b20025", Revision: "eb25c9b20025", RevisionFrom: "module", GoVersion: "go1.26.8"}},
		{"metis replaced by a directory", debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Path: "example.com/certifier"},
			Deps: []*debug.Module{{Path: Module, Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "../metis"}}}},
			Info{Version: "(devel)", GoVersion: "go1.26.8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FromBuildInfo(&tt.bi)); diff != "" {
				t.Errorf("FromBuildInfo (-want +got):\n%s", diff)
			}
		})
	}
}

func TestString(t *testing.T) {
	for _, tt := range []struct {
		info Info
		want string
	}{
		{Info{Version: "v1.2.3", Revision: "abc", GoVersion: "go1.26.8"}, "metis v1.2.3 (revision abc) go1.26.8"},
		{Info{Version: "(devel)", Revision: "abc", Modified: true, GoVersion: "go1.26.8"}, "metis (devel) (revision abc, modified) go1.26.8"},
		{Info{Version: "(devel)", GoVersion: "go1.26.8"}, "metis (devel) (revision unknown) go1.26.8"},
	} {
		if got := tt.info.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.info, got, tt.want)
		}
	}
}

// TestReadAsksGitOnlyInMetisCheckout: without a stamped revision, git is
// asked only when metis is the main module of an unreleased build and the
// working directory's module is metis, and then in that module's root;
// never inside a third party's binary or checkout.
func TestReadAsksGitOnlyInMetisCheckout(t *testing.T) {
	root := t.TempDir()
	write := func(dir, gomod string) string {
		t.Helper()
		dir = filepath.Join(root, dir)
		if err := os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755); err != nil {
			t.Fatal(err)
		}
		if gomod != "" {
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	metis := write("metis", "module "+Module+"\n\ngo 1.26.0\n")
	other := write("certifier", "// a third party\nmodule example.com/certifier\n\nrequire "+Module+" v1.4.0\n")
	bare := write("bare", "")

	mainDevel := debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: Module, Version: "(devel)"}}
	mainRelease := debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: Module, Version: "v1.2.3"}}
	thirdParty := debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/certifier", Version: "(devel)"},
		Deps: []*debug.Module{{Path: Module, Version: "v1.4.0"}}}
	for _, tt := range []struct {
		name    string
		bi      debug.BuildInfo
		wd      string
		wantDir string // where git is asked; "" for not at all
		want    Info
	}{
		{"go run in metis's checkout", mainDevel, filepath.Join(metis, "sub", "deeper"), metis,
			Info{Version: "(devel)", Revision: "abc123", Modified: true, RevisionFrom: "git", GoVersion: "go1.26.8"}},
		{"go run of metis from another module's directory", mainDevel, filepath.Join(other, "sub"), "",
			Info{Version: "(devel)", GoVersion: "go1.26.8"}},
		{"go run of metis outside any module", mainDevel, filepath.Join(bare, "sub"), "",
			Info{Version: "(devel)", GoVersion: "go1.26.8"}},
		{"a released metis run in metis's checkout", mainRelease, metis, "",
			Info{Version: "v1.2.3", GoVersion: "go1.26.8"}},
		{"a third party's test binary in its checkout", thirdParty, filepath.Join(other, "sub"), "",
			Info{Version: "v1.4.0", GoVersion: "go1.26.8"}},
		{"a third party's test binary run from metis's checkout", thirdParty, metis, "",
			Info{Version: "v1.4.0", GoVersion: "go1.26.8"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			git := func(dir string) (string, bool) {
				asked = append(asked, dir)
				return "abc123", true
			}
			got := read(&tt.bi, tt.wd, git)
			var want []string
			if tt.wantDir != "" {
				want = []string{tt.wantDir}
			}
			if diff := cmp.Diff(want, asked); diff != "" {
				t.Errorf("git asked in (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("read (-want +got):\n%s", diff)
			}
		})
	}
}
