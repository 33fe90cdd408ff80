package driver

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

type testOptions struct {
	Flag   bool     `option:"flag"`
	Count  int      `option:"count"`
	Ratio  float64  `option:"ratio"`
	Name   string   `option:"name" enum:"a|b"`
	List   []string `option:"list"`
	Maybe  *bool    `option:"maybe"`
	Global string   `option:"global,adapter"`
}

func decodeYAML(t testing.TB, adapterOpts, modelOpts string) (*Options[testOptions], error) {
	t.Helper()
	cfg := &adapters.Config{Name: "x", Models: map[string]adapters.ModelConfig{}}
	if err := yaml.Unmarshal([]byte(adapterOpts), &cfg.Options); err != nil {
		t.Skip(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(modelOpts), &m); err != nil {
		t.Skip(err)
	}
	cfg.Models["x:m"] = adapters.ModelConfig{Options: m}
	return DecodeOptions(cfg, testOptions{Name: "a", Count: 7})
}

func TestDecodeOptions(t *testing.T) {
	o, err := decodeYAML(t, "flag: true\nlist: one\nglobal: g\nratio: 2\n", "count: 3\nlist: [p, q]\nmaybe: false\nname: b\n")
	if err != nil {
		t.Fatal(err)
	}
	no := false
	want := testOptions{Flag: true, Count: 3, Ratio: 2, Name: "b", List: []string{"p", "q"}, Maybe: &no, Global: "g"}
	if diff := cmp.Diff(want, o.For("x:m")); diff != "" {
		t.Errorf("model options (-want +got):\n%s", diff)
	}
	wantAdapter := testOptions{Flag: true, Count: 7, Ratio: 2, Name: "a", List: []string{"one"}, Global: "g"}
	if diff := cmp.Diff(wantAdapter, o.For("x:other")); diff != "" {
		t.Errorf("another model gets the adapter's (-want +got):\n%s", diff)
	}
}

func TestDecodeOptionsErrors(t *testing.T) {
	for _, tc := range []struct{ adapter, model, want string }{
		{"flag: yes\n", "", `adapter "x": options.flag: want true or false, got a string "yes"`},
		{"", "flag: 1\n", `adapter "x": models.x:m.options.flag: want true or false, got a number 1`},
		{"count: 1.5\n", "", `adapter "x": options.count: want an integer, got a number 1.5`},
		{"count: \"3\"\n", "", `adapter "x": options.count: want an integer, got a string "3"`},
		{"ratio: true\n", "", `adapter "x": options.ratio: want a number, got a boolean true`},
		{"name: c\n", "", `adapter "x": options.name: unknown value "c" (want a, b)`},
		{"list: [a, 1]\n", "", `adapter "x": options.list: [1]: want a string, got a number 1`},
		{"list: {a: 1}\n", "", `adapter "x": options.list: want a string or a list of strings, got an object`},
		{"", "global: g\n", `adapter "x": models.x:m.options.global: global is set for the whole adapter, not per model`},
		{"typo: 1\n", "", `adapter "x": options.typo: unknown option (want count, flag, global, list, maybe, name, ratio)`},
		{"", "typo: 1\n", `adapter "x": models.x:m.options.typo: unknown option (want count, flag, list, maybe, name, ratio)`},
	} {
		_, err := decodeYAML(t, tc.adapter, tc.model)
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) || ae.Message != tc.want || ae.Code != canonical.CodeNotConfigured {
			t.Errorf("%q / %q: error %v, want %q", tc.adapter, tc.model, err, tc.want)
		}
	}
}

// FuzzDecodeOptions: any YAML options decode or fail with an AdapterError
// naming the adapter, never a panic.
func FuzzDecodeOptions(f *testing.F) {
	f.Add("flag: true\ncount: 2\n", "list: [a]\n")
	f.Add("name: c\n", "maybe: ~\n")
	f.Add("ratio: .inf\n", "count: 9007199254740993\n")
	f.Fuzz(func(t *testing.T, adapterOpts, modelOpts string) {
		_, err := decodeYAML(t, adapterOpts, modelOpts)
		var ae *canonical.AdapterError
		if err != nil && (!errors.As(err, &ae) || !strings.HasPrefix(ae.Message, `adapter "x": `)) {
			t.Fatalf("error %v is not the option error", err)
		}
	})
}
