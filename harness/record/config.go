package record

import (
	"io"
	"net/http"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness/scenario"
)

// Config configures Run, a recording session. The zero value records
// every scenario under scenarios/ against the live APIs into cassettes/,
// keeping existing cassettes, and compares with goldens/.
type Config struct {
	// ScenarioDir is where scenarios are loaded from (default
	// "scenarios"); Scenarios, when set, is used instead.
	ScenarioDir string
	Scenarios   []*scenario.Scenario
	// CassetteDir receives cassettes/<provider>/<scenario-id>.yaml
	// (default "cassettes"); GoldenDir holds the goldens the new
	// cassettes are checked against (default "goldens").
	CassetteDir string
	GoldenDir   string

	// IDs keeps scenarios whose id matches one of the path.Match globs;
	// Models keeps matrix models listed by id or provider. Empty keeps
	// everything.
	IDs    []string
	Models []string

	// Emulator answers every request from an in-process emulator, started
	// per run and scripted by each call step's reply, with FakeKey as
	// every API key (default harness.FakeKey). BaseURL instead sends
	// every request to that server (scheme, host and path prefix), with
	// the keys from Getenv — or, when the server is a `conform emulate`
	// server, FakeKey (see Source). Neither: the providers' own endpoints.
	Emulator bool
	FakeKey  string
	BaseURL  string
	// Source is the provenance source of cassettes recorded through
	// BaseURL: SourceEmulator (requests carry FakeKey, no key is needed)
	// or SourceLive (the keys from Getenv). Empty asks the server:
	// DetectEmulator. With Emulator it can only be SourceEmulator; with
	// neither, only SourceLive.
	Source Source

	// Force overwrites existing cassettes. OnlyFailing records only runs
	// that fail replay now (their cassettes are overwritten). Without
	// either, a run whose cassettes all exist is skipped, and a run with
	// some of them replays those and records the rest.
	Force       bool
	OnlyFailing bool
	// DryRun lists what would be recorded and records nothing.
	DryRun bool

	// Registry resolves models (nil: adapters.DefaultRegistry());
	// Factories builds adapters (nil: providers.Factories()).
	Registry  *adapters.Registry
	Factories map[string]adapters.Factory
	// Getenv resolves the registry's api_key_env variables; nil means
	// os.Getenv. Unused with Emulator.
	Getenv func(string) string
	// Transport is the HTTP transport to the servers; nil means a fresh
	// clone of http.DefaultTransport.
	Transport http.RoundTripper
	// Faults builds inject steps' transports (nil: faults.FromSpec).
	Faults func(spec map[string]any, next http.RoundTripper) (http.RoundTripper, error)

	// Out receives a progress line per run, the drift found by the replay
	// of the new cassettes, and a summary; nil discards them.
	Out io.Writer
	// Now stamps recorded_at; nil means time.Now.
	Now func() time.Time
}
