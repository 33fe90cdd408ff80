package harness

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/canonical"
)

// TestOracleOfEveryExpectation runs every expectation key of expect (the
// expectJSON fields but the per_* refinements) and checks the oracle of
// each check it produces, against a table written by hand from
// docs/oracles.md.
func TestOracleOfEveryExpectation(t *testing.T) {
	yes, no := true, false
	one, three := 1, 3
	text := "Hello"
	msg := &canonical.Message{Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Status: canonical.StatusComplete, Usage: &canonical.Usage{}}}
	tests := []struct {
		key    string
		expect Expect
		err    error
		want   map[string]Oracle // check name → oracle
	}{
		{"error (class)", Expect{Error: &ExpectError{Class: canonical.ErrServer}}, errors.New("x"),
			map[string]Oracle{CheckError: OracleContract}},
		{"error (a code of 004 §7)", Expect{Error: &ExpectError{Class: canonical.ErrInvalidRequest, Code: canonical.CodeInvalidResponse}}, errors.New("x"),
			map[string]Oracle{CheckError: OracleContract}},
		{"error (a finer code and a message)", Expect{Error: &ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeOverloaded, Message: "Overloaded"}}, errors.New("x"),
			map[string]Oracle{CheckError: OracleContract, CheckErrorDetail: OracleRegression}},
		{"stop_reason", Expect{StopReason: canonical.StopEndTurn}, nil, map[string]Oracle{CheckError: OracleContract, CheckStopReason: OracleContract}},
		{"blocks", Expect{Blocks: []ExpectBlock{{Type: canonical.BlockText}}}, nil, map[string]Oracle{CheckError: OracleContract, CheckBlocks: OracleContract}},
		{"attempts", Expect{Attempts: &one}, nil, map[string]Oracle{CheckError: OracleContract, CheckAttempts: OracleContract}},
		{"events (starts, ends, none)", Expect{Events: map[canonical.EventType]int{canonical.EventToolUseEnd: 1, canonical.EventTextDelta: 0}}, nil,
			map[string]Oracle{CheckError: OracleContract, CheckEvents: OracleContract}},
		{"events (delta counts)", Expect{Events: map[canonical.EventType]int{canonical.EventMessageComplete: 1, canonical.EventTextDelta: 3}}, nil,
			map[string]Oracle{CheckError: OracleContract, CheckEvents: OracleContract, CheckEventChunks: OracleRegression}},
		{"text_contains", Expect{TextContains: []string{"x"}}, nil, map[string]Oracle{CheckError: OracleContract, CheckText: OracleContract}},
		{"text", Expect{Text: &text}, nil, map[string]Oracle{CheckError: OracleContract, CheckTextExact: OracleContract}},
		{"usage (reported)", Expect{Usage: &ExpectUsage{InputTokens: &three, Estimated: &no}}, nil, map[string]Oracle{CheckError: OracleContract, CheckUsage: OracleContract}},
		{"usage (estimated)", Expect{Usage: &ExpectUsage{InputTokens: &three, Estimated: &yes}}, nil, map[string]Oracle{CheckError: OracleContract, CheckUsage: OracleRegression}},
		{"provider_stop_reason", Expect{ProviderStopReason: "stop"}, nil, map[string]Oracle{CheckError: OracleContract, CheckProviderStop: OracleRegression}},
		{"served_model", Expect{ServedModel: "m"}, nil, map[string]Oracle{CheckError: OracleContract, CheckServedModel: OracleContract}},
		{"status", Expect{Status: canonical.StatusComplete}, nil, map[string]Oracle{CheckError: OracleContract, CheckStatus: OracleContract}},
		{"cost", Expect{Cost: &ExpectCost{USD: "0"}}, nil, map[string]Oracle{CheckError: OracleContract, CheckCost: OracleContract}},
		{"session_cost", Expect{SessionCost: "0"}, nil, map[string]Oracle{CheckError: OracleContract, CheckSessionCost: OracleContract}},
		{"logs", Expect{Logs: []ExpectLog{{Level: "WARN"}}}, nil, map[string]Oracle{CheckError: OracleContract, CheckLogs: OracleRegression}},
		{"lifecycle (type and fields)", Expect{Lifecycle: []ExpectLifecycle{{Type: "lossy_projection", Fields: map[string]string{"block_type": "image"}}}}, nil,
			map[string]Oracle{CheckError: OracleContract, CheckLifecycle: OracleContract}},
		{"lifecycle (a wait)", Expect{Lifecycle: []ExpectLifecycle{{Type: "llm.retry_scheduled", Fields: map[string]string{"wait": "1s"}}}}, nil,
			map[string]Oracle{CheckError: OracleContract, CheckLifecycle: OracleRegression}},
		{"request", Expect{Requests: []ExpectRequest{{Path: "/v1/messages"}}}, nil, map[string]Oracle{CheckError: OracleContract, CheckRequest: OracleContract}},
		{"waits", Expect{Waits: []ExpectWait{{Exact: time.Second}}}, nil, map[string]Oracle{CheckError: OracleContract, CheckWaits: OracleRegression}},
		{"fragments", Expect{Fragments: FragmentsVerbatim}, nil, map[string]Oracle{CheckError: OracleContract, CheckFragments: OracleContract}},
		// The response here has no raw body: giving one is metis's
		// extension (TestRawOracle has a response with one).
		{"raw (no raw body)", Expect{Raw: json.RawMessage(`{}`)}, nil, map[string]Oracle{CheckError: OracleContract, CheckRaw: OracleRegression}},
		{"provider_raw", Expect{ProviderRaw: json.RawMessage(`{}`)}, nil, map[string]Oracle{CheckError: OracleContract, CheckProviderRaw: OracleRegression}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			key, _, _ := strings.Cut(tt.key, " ")
			covered[key] = true
			o := &outcome{err: tt.err, resp: &canonical.Response{}}
			var cfg Config
			got := map[string]Oracle{}
			for _, c := range cfg.oracleChecks(expectCall(&tt.expect, o, &stepData{msg: msg})) {
				got[c.Name] = c.Oracle
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("oracles (-want +got):\n%s", diff)
			}
		})
	}
	// The keys checked elsewhere: swap and reload steps, the run.
	for name, want := range map[string]Oracle{
		CheckRefused: OracleContract, CheckReasons: OracleRegression, CheckReload: OracleContract,
		CheckSameAs: OracleContract, CheckStream: OracleContract, CheckBoth: OracleContract, CheckTextMatch: OracleContract,
	} {
		covered[name] = true
		if got := OracleOf(name); got != want {
			t.Errorf("OracleOf(%s) = %s, want %s", name, got, want)
		}
	}
	covered["text_matches"] = true
	covered["refused"], covered["reasons"] = true, true
	typ := reflect.TypeFor[expectJSON]()
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if strings.HasPrefix(key, "per_") {
			continue
		}
		if !covered[key] {
			t.Errorf("expectation key %s has no row in this table", key)
		}
	}
}

// TestRawOracle: a raw body that lacks what the response carried fails
// the contract (004 §8.2: verbatim, no field omitted); no raw body at all
// fails the regression oracle only (canonical.Response.RawBody is
// metis's extension).
func TestRawOracle(t *testing.T) {
	want := json.RawMessage(`{"system_fingerprint": "fp_1"}`)
	for _, tt := range []struct {
		name   string
		raw    string
		ok     bool
		oracle Oracle
	}{
		{"verbatim", `{"id": "x", "system_fingerprint": "fp_1"}`, true, OracleContract},
		{"a field omitted", `{"id": "x"}`, false, OracleContract},
		{"none given", ``, false, OracleRegression},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := expectRaw(want, []byte(tt.raw))
			if c.OK != tt.ok || c.Oracle != tt.oracle {
				t.Errorf("check %+v, want ok %t, oracle %s", c, tt.ok, tt.oracle)
			}
		})
	}
}

// TestOracleFilter: under Config.Oracle contract, regression checks are
// dropped, so that their failure fails nothing; contract checks stay.
// Under regression, the reverse.
func TestOracleFilter(t *testing.T) {
	checks := func() []Check {
		return []Check{
			{Name: CheckStopReason, OK: true},
			{Name: CheckWaits, OK: false, Message: "waits [1s], want [2s]"},
			{Name: CheckUsage, OK: false, Oracle: OracleRegression},
			{Name: CheckLifecycle, OK: true, Oracle: OracleContract},
			{Name: "not-yet-classified", OK: true},
		}
	}
	tests := []struct {
		oracle Oracle
		want   []string
	}{
		{"", []string{"stop_reason:contract", "waits:regression", "usage:regression", "lifecycle:contract", "not-yet-classified:contract"}},
		{OracleAll, []string{"stop_reason:contract", "waits:regression", "usage:regression", "lifecycle:contract", "not-yet-classified:contract"}},
		{OracleContract, []string{"stop_reason:contract", "lifecycle:contract", "not-yet-classified:contract"}},
		{OracleRegression, []string{"waits:regression", "usage:regression"}},
	}
	for _, tt := range tests {
		cfg := Config{Oracle: tt.oracle}
		var got []string
		for _, c := range cfg.oracleChecks(checks()) {
			got = append(got, c.Name+":"+string(c.Oracle))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Oracle %q (-want +got):\n%s", tt.oracle, diff)
		}
	}
	for _, o := range RunOracles {
		if _, err := (&Config{Oracle: o}).checkOracle(); err != nil {
			t.Errorf("Config.Oracle %q: %v", o, err)
		}
	}
	if _, err := (&Config{Oracle: "both"}).checkOracle(); err == nil || !strings.Contains(err.Error(), `"all", "contract" or "regression"`) {
		t.Errorf("Config.Oracle both: error %v, want one naming all, contract and regression", err)
	}
}

// TestEveryCheckNameHasAnOracle keeps checkOracles complete: a check
// name missing from it would fall back to contract silently.
func TestEveryCheckNameHasAnOracle(t *testing.T) {
	names := []string{
		CheckError, CheckErrorDetail, CheckStopReason, CheckBlocks, CheckAttempts, CheckEvents, CheckEventChunks,
		CheckText, CheckTextMatch, CheckTextExact, CheckUsage, CheckStream, CheckBoth, CheckRefused,
		CheckProviderStop, CheckServedModel, CheckStatus, CheckCost, CheckSessionCost, CheckLogs, CheckLifecycle,
		CheckRequest, CheckWaits, CheckFragments, CheckRaw, CheckProviderRaw, CheckReasons, CheckReload, CheckSameAs,
	}
	for _, n := range names {
		if _, ok := checkOracles[n]; !ok {
			t.Errorf("check %s has no oracle in checkOracles", n)
		}
	}
	if len(checkOracles) != len(names) {
		t.Errorf("checkOracles has %d names, this test %d: add the new one here", len(checkOracles), len(names))
	}
	for _, f := range []string{GoldenTranscript, GoldenRequests, GoldenEvents} {
		if _, ok := goldenOracles[f]; !ok {
			t.Errorf("golden %s has no oracle", f)
		}
	}
}

// TestErrorSplit: the class and a code of 004 §7 are the contract's, a
// finer code and the message metis's.
func TestErrorSplit(t *testing.T) {
	overloaded := &canonical.AdapterError{Class: canonical.ErrRateLimit, Code: canonical.CodeOverloaded, Message: "Overloaded"}
	tests := []struct {
		name string
		want *ExpectError
		err  error
		ok   map[string]bool
	}{
		{"all agree", &ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeOverloaded, Message: "Overloaded"}, overloaded,
			map[string]bool{CheckError: true, CheckErrorDetail: true}},
		{"another text", &ExpectError{Class: canonical.ErrRateLimit, Message: "Too many"}, overloaded,
			map[string]bool{CheckError: true, CheckErrorDetail: false}},
		{"another finer code", &ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeQuotaExceeded}, overloaded,
			map[string]bool{CheckError: true, CheckErrorDetail: false}},
		{"another class", &ExpectError{Class: canonical.ErrServer, Code: canonical.CodeOverloaded}, overloaded,
			map[string]bool{CheckError: false, CheckErrorDetail: true}},
		{"another contract code", &ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeModelNotLoaded}, overloaded,
			map[string]bool{CheckError: false}},
		{"no error", &ExpectError{Class: canonical.ErrRateLimit, Message: "x"}, nil,
			map[string]bool{CheckError: false}},
	}
	for _, tt := range tests {
		got := map[string]bool{}
		for _, c := range expectErrors(tt.want, tt.err) {
			got[c.Name] = c.OK
		}
		if diff := cmp.Diff(tt.ok, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestContractTranscript: a transcript that differs only in provider_raw
// or in an estimated usage passes the contract comparison and fails the
// byte (regression) one; a different tool input fails both.
func TestContractTranscript(t *testing.T) {
	const base = `[
  {"id": "msg_1", "role": "user", "content": [{"type": "text", "text": "Read it."}], "metadata": {}},
  {"id": "msg_2", "role": "assistant",
   "content": [{"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "README.md"}}],
   "metadata": {"model": "anthropic:m", "provider": "anthropic", "status": "complete",
     "usage": {"input_tokens": 10, "output_tokens": 2, "cost_usd": "0.1"},
     "provider_raw": {"anthropic": {"id": "msg_emu_0001"}}}}
]
`
	tests := []struct {
		name               string
		from, to           string
		contract, byteWise bool // whether each comparison passes
	}{
		{"identical", "", "", true, true},
		{"another provider_raw", `"msg_emu_0001"`, `"msg_01ABC"`, true, false},
		{"no provider_raw", `,
     "provider_raw": {"anthropic": {"id": "msg_emu_0001"}}`, ``, true, false},
		{"another tool input", `"README.md"`, `"LICENSE"`, false, false},
		{"another tool name", `"read_file"`, `"write_file"`, false, false},
		{"another stop of the message", `"complete"`, `"error"`, false, false},
		{"reported usage differs", `"input_tokens": 10`, `"input_tokens": 11`, false, false},
		{"key order and spacing", `{"path": "README.md"}`, `{ "path":"README.md" }`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := []byte(base)
			gotRaw := []byte(strings.Replace(base, tt.from, tt.to, 1))
			if tt.from != "" && string(gotRaw) == base {
				t.Fatalf("the edit %q → %q changed nothing", tt.from, tt.to)
			}
			got, err := ContractTranscript(gotRaw)
			if err != nil {
				t.Fatal(err)
			}
			diff, err := ContractGoldenDiff(want, got)
			if err != nil {
				t.Fatal(err)
			}
			if (diff == "") != tt.contract {
				t.Errorf("contract comparison passes: %t, want %t; diff:\n%s", diff == "", tt.contract, diff)
			}
			if byteWise := GoldenDiff(want, gotRaw) == ""; byteWise != tt.byteWise {
				t.Errorf("byte comparison passes: %t, want %t", byteWise, tt.byteWise)
			}
		})
	}
	estimated := strings.Replace(base, `"cost_usd": "0.1"`, `"cost_usd": "0.1", "estimated": true`, 1)
	other := strings.Replace(estimated, `"input_tokens": 10`, `"input_tokens": 99`, 1)
	a, err1 := ContractTranscript([]byte(estimated))
	b, err2 := ContractTranscript([]byte(other))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if d := GoldenDiff(a, b); d != "" {
		t.Errorf("estimated usage is metis's policy, yet the projections differ:\n%s", d)
	}
	if strings.Contains(string(a), "provider_raw") || strings.Contains(string(a), `"usage"`) {
		t.Errorf("the projection keeps provider_raw or an estimated usage:\n%s", a)
	}
	cancelled := strings.Replace(base, `"complete"`, `"cancelled"`, 1)
	cancelledEstimate := strings.Replace(cancelled, `"input_tokens": 10, "output_tokens": 2, "cost_usd": "0.1"`, `"input_tokens": 3, "output_tokens": 0, "cost_usd": "0", "estimated": true`, 1)
	a, err1 = ContractTranscript([]byte(cancelled))
	b, err2 = ContractTranscript([]byte(cancelledEstimate))
	if err1 != nil || err2 != nil || cancelled == cancelledEstimate {
		t.Fatal(err1, err2, "or the edit changed nothing")
	}
	if d := GoldenDiff(a, b); d != "" {
		t.Errorf("a cancelled turn's usage is the adapter's policy, yet the projections differ:\n%s", d)
	}
	if _, err := ContractTranscript([]byte(`{"not": "a list"}`)); err == nil {
		t.Error("a transcript that is not a list: no error")
	}
	if !slices.Contains(contractCodes, canonical.CodeInvalidResponse) {
		t.Error("invalid_response (004 §7 provider_invalid_response) is not a contract code")
	}
}

// FuzzContractTranscript: the projection never panics, and projecting a
// projection changes nothing.
func FuzzContractTranscript(f *testing.F) {
	f.Add([]byte(`[{"role":"assistant","content":[],"metadata":{"provider_raw":{"a":{}},"usage":{"estimated":true}}}]`))
	f.Add([]byte(`[{"metadata":null},{"metadata":{"usage":"x"}}]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		once, err := ContractTranscript(data)
		if err != nil {
			return
		}
		twice, err := ContractTranscript(once)
		if err != nil {
			t.Fatalf("the projection %q does not project: %v", once, err)
		}
		if d := GoldenDiff(once, twice); d != "" {
			t.Fatalf("projecting twice changes the result:\n%s", d)
		}
	})
}
