package certify

import (
	"testing"

	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/scenarios"
)

// TestRenamedIDs: every old id of the published renames is gone from
// today's suite and every new id is one of its scenarios, so that an old
// certificate's runs map onto scenarios that exist.
func TestRenamedIDs(t *testing.T) {
	scs, err := scenario.LoadFS(scenarios.FS)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, sc := range scs {
		ids[sc.ID] = true
	}
	rs := Renamed()
	if len(rs) == 0 {
		t.Fatal("no renames published")
	}
	for _, r := range rs {
		if ids[r.From] {
			t.Errorf("renamed id %s is still a scenario of the suite", r.From)
		}
		if !ids[CurrentID(r.From)] {
			t.Errorf("%s is renamed to %s, which is no scenario of the suite", r.From, CurrentID(r.From))
		}
	}
	if got := CurrentID("basic/plain-text"); got != "basic/plain-text" {
		t.Errorf("CurrentID of an id never renamed = %q", got)
	}
}

func TestParseRenamed(t *testing.T) {
	for name, tt := range map[string]struct {
		data, err string
	}{
		"ok":        {data: `{"renamed": [{"from": "a/b", "to": "a/c"}]}`},
		"unknown":   {data: `{"renamed": [{"from": "a/b", "to": "a/c", "x": 1}]}`, err: `certify: renamed.json: json: unknown field "x"`},
		"no to":     {data: `{"renamed": [{"from": "a/b"}]}`, err: "certify: renamed.json: renamed[0]: from and to are both required"},
		"to itself": {data: `{"renamed": [{"from": "a/b", "to": "a/b"}]}`, err: "certify: renamed.json: renamed[0]: a/b is renamed to itself"},
		"twice":     {data: `{"renamed": [{"from": "a/b", "to": "a/c"}, {"from": "a/b", "to": "a/d"}]}`, err: "certify: renamed.json: renamed[1]: a/b is renamed twice"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseRenamed([]byte(tt.data))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Fatalf("error %v, want %s", err, tt.err)
			}
		})
	}
}
