package driver

import (
	"errors"
	"strings"
	"testing"
	"time"

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
		{"typo: 1\n", "", `adapter "x": options.typo: unknown option (want count, flag, global, idle_timeout_seconds, list, max_body_bytes, max_event_bytes, maybe, name, ratio)`},
		{"", "typo: 1\n", `adapter "x": models.x:m.options.typo: unknown option (want count, flag, idle_timeout_seconds, list, max_body_bytes, max_event_bytes, maybe, name, ratio)`},
		// The driver's own options are checked by the driver (see
		// TestLimitOptions); a provider's decoding lets them through.
	} {
		_, err := decodeYAML(t, tc.adapter, tc.model)
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) || ae.Message != tc.want || ae.Code != canonical.CodeNotConfigured {
			t.Errorf("%q / %q: error %v, want %q", tc.adapter, tc.model, err, tc.want)
		}
	}
}

// TestLimitOptions: the driver's limits are set per adapter and per model
// next to any provider's options, with defaults, and bad values are
// errors naming the key.
func TestLimitOptions(t *testing.T) {
	cfg := &adapters.Config{Name: "x",
		Options: map[string]any{"idle_timeout_seconds": 0.25, "max_body_bytes": 1024, "flag": true},
		Models: map[string]adapters.ModelConfig{
			"x:slow": {Options: map[string]any{"idle_timeout_seconds": 0, "max_event_bytes": 99}},
			"x:m":    {Options: map[string]any{"count": 3}},
		}}
	o, err := decodeLimits(cfg)
	if err != nil {
		t.Fatal(err)
	}
	adapter := Limits{IdleTimeout: 250 * time.Millisecond, MaxBodyBytes: 1024, MaxEventBytes: DefaultMaxSSEEvent}
	for model, want := range map[string]Limits{
		"x:other": adapter,
		"x:m":     adapter,
		"x:slow":  {IdleTimeout: 0, MaxBodyBytes: 1024, MaxEventBytes: 99},
	} {
		if diff := cmp.Diff(want, o.For(model)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", model, diff)
		}
	}
	if _, err := DecodeOptions(cfg, testOptions{}); err != nil {
		t.Errorf("the provider's decoding refuses the driver's keys: %v", err)
	}
	none, err := decodeLimits(&adapters.Config{Name: "x"})
	if err != nil || none.For("x:m") != DefaultLimits {
		t.Errorf("no options: %+v, %v; want the defaults", none.For("x:m"), err)
	}
	for _, tc := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"idle_timeout_seconds": -1}, `adapter "x": options.idle_timeout_seconds: want a number of seconds ≥ 0 (0 turns it off), got -1`},
		{map[string]any{"idle_timeout_seconds": "5s"}, `adapter "x": options.idle_timeout_seconds: want a number, got a string "5s"`},
		{map[string]any{"max_body_bytes": 0}, `adapter "x": options.max_body_bytes: want a positive number of bytes, got 0`},
		{map[string]any{"max_event_bytes": 1.5}, `adapter "x": options.max_event_bytes: want an integer, got a number 1.5`},
	} {
		_, err := decodeLimits(&adapters.Config{Name: "x", Options: tc.opts})
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) || ae.Message != tc.want {
			t.Errorf("%v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
	_, err = decodeLimits(&adapters.Config{Name: "x", Models: map[string]adapters.ModelConfig{"x:m": {Options: map[string]any{"max_event_bytes": -2}}}})
	if want := `adapter "x": models.x:m.options.max_event_bytes: want a positive number of bytes, got -2`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("per-model error %v, want %q", err, want)
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
