package harness_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/stretchr/testify/require"
)

// factories builds every adapter metis ships.
func factories() map[string]adapters.Factory { return providers.Factories() }

// emulated returns a Config whose transports send every request to a
// fresh emulator, scripted from each call's reply, as the record tool
// does; faults come from the real fault layer.
func emulated(t *testing.T) harness.Config {
	t.Helper()
	cfg, stop, err := newEmulated()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return cfg
}

// newEmulated is emulated for a caller that stops the emulator itself
// (stop), as soon as its run is done.
func newEmulated() (cfg harness.Config, stop func(), err error) {
	// Every attempt of a call gets the call's reply, as when recording
	// (harness/record): a retried call reaches the server again.
	var (
		mu       sync.Mutex
		reply    *scenario.Reply
		provider string
	)
	srv := emulator.NewServer(emulator.WithResponder(func(c emulator.Call) (emulator.Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		if reply == nil {
			return emulator.Reply{}, fmt.Errorf("a %s request with no reply script", c.API)
		}
		r := toEmulator(reply)
		r.Profile = serverProfile(provider)
		return r, nil
	}))
	target, err := url.Parse(srv.URL)
	if err != nil {
		srv.Close()
		return harness.Config{}, nil, err
	}
	return harness.Config{
		Factories: factories(),
		NoGoldens: true,
		Transport: func(provider string, sc *scenario.Scenario, model string) (http.RoundTripper, error) {
			return replay.Resplit(rewriteHost{target: target, keyless: localServers[provider]}), nil
		},
		BeforeCall: func(_ context.Context, c harness.CallInfo) error {
			mu.Lock()
			reply, provider = c.Step.Call.Reply, c.Provider
			mu.Unlock()
			return nil
		},
		Faults: faults.FromSpec,
	}, srv.Close, nil
}

// serverProfile names the emulator profile of an OpenAI-compatible
// adapter's server kind, as `record --emulator` picks it; "" for the
// others (their API's reference profile).
func serverProfile(adapter string) string {
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		return ""
	}
	cfg, err := reg.Config(adapter, func(string) string { return "k" })
	if err != nil || cfg.Type != "openaicompat" {
		return ""
	}
	kind, _ := cfg.Options["kind"].(string)
	if p, ok := emulator.ProfileForServer(kind); ok {
		return p.Name
	}
	return ""
}

// localServers are the registry's adapters that send no API key; the
// emulator asks every request for one, so rewriteHost adds a stand-in.
var localServers = map[string]bool{"vllm": true, "ollama": true, "lmstudio": true, "llamacpp": true, "ollama-native": true}

type rewriteHost struct {
	target  *url.URL
	keyless bool
}

func (rw rewriteHost) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if rw.keyless {
		r.Header.Set("Authorization", "Bearer local-server-needs-no-key")
	}
	r.URL.Scheme, r.URL.Host, r.Host = rw.target.Scheme, rw.target.Host, ""
	return http.DefaultTransport.RoundTrip(r)
}

func toEmulator(r *scenario.Reply) emulator.Reply {
	out := emulator.Reply{Text: r.Text, Thinking: r.Thinking, Signature: r.Signature, StopReason: r.StopReason, StopSequence: r.StopSequence,
		Model: r.Model, InterleaveToolArguments: r.InterleaveToolArguments, StreamFunctionCallArguments: r.StreamFunctionCallArguments}
	if r.Usage != nil {
		out.Usage = *r.Usage
	}
	for _, tc := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, emulator.ToolCall{ID: tc.ID, Name: tc.Name, Input: tc.Input})
	}
	return out
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// parse parses src as the scenario file name, failing the test on error.
func parse(t *testing.T, name, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(name, []byte(src))
	require.NoError(t, err)
	return sc
}
