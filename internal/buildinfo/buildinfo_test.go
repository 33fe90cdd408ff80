package buildinfo

import (
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
