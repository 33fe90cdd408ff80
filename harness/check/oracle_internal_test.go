package check

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
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
		expect scenario.Expect
		err    error
		want   map[string]scenario.Oracle // check name → oracle
	}{
		{"error (class)", scenario.Expect{Error: &scenario.ExpectError{Class: canonical.ErrServer}}, errors.New("x"),
			map[string]scenario.Oracle{CheckError: scenario.OracleContract}},
		{"error (a code of 004 §7)", scenario.Expect{Error: &scenario.ExpectError{Class: canonical.ErrInvalidRequest, Code: canonical.CodeInvalidResponse}}, errors.New("x"),
			map[string]scenario.Oracle{CheckError: scenario.OracleContract}},
		{"error (a finer code and a message)", scenario.Expect{Error: &scenario.ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeOverloaded, Message: "Overloaded"}}, errors.New("x"),
			map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckErrorDetail: scenario.OracleRegression}},
		{"stop_reason", scenario.Expect{StopReason: canonical.StopEndTurn}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckStopReason: scenario.OracleContract}},
		{"blocks", scenario.Expect{Blocks: []scenario.ExpectBlock{{Type: canonical.BlockText}}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckBlocks: scenario.OracleContract}},
		{"attempts", scenario.Expect{Attempts: &one}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckAttempts: scenario.OracleContract}},
		{"events (starts, ends, none)", scenario.Expect{Events: map[canonical.EventType]int{canonical.EventToolUseEnd: 1, canonical.EventTextDelta: 0}}, nil,
			map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckEvents: scenario.OracleContract}},
		{"events (delta counts)", scenario.Expect{Events: map[canonical.EventType]int{canonical.EventMessageComplete: 1, canonical.EventTextDelta: 3}}, nil,
			map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckEvents: scenario.OracleContract, CheckEventChunks: scenario.OracleRegression}},
		{"text_contains", scenario.Expect{TextContains: []string{"x"}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckText: scenario.OracleContract}},
		{"text", scenario.Expect{Text: &text}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckTextExact: scenario.OracleContract}},
		{"usage (reported)", scenario.Expect{Usage: &scenario.ExpectUsage{InputTokens: &three, Estimated: &no}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckUsage: scenario.OracleContract}},
		{"usage (estimated)", scenario.Expect{Usage: &scenario.ExpectUsage{InputTokens: &three, Estimated: &yes}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckUsage: scenario.OracleRegression}},
		{"provider_stop_reason", scenario.Expect{ProviderStopReason: "stop"}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckProviderStop: scenario.OracleRegression}},
		{"served_model", scenario.Expect{ServedModel: "m"}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckServedModel: scenario.OracleContract}},
		{"status", scenario.Expect{Status: canonical.StatusComplete}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckStatus: scenario.OracleContract}},
		{"cost", scenario.Expect{Cost: &scenario.ExpectCost{USD: "0"}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckCost: scenario.OracleContract}},
		{"session_cost", scenario.Expect{SessionCost: "0"}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckSessionCost: scenario.OracleContract}},
		{"logs", scenario.Expect{Logs: []scenario.ExpectLog{{Level: "WARN"}}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckLogs: scenario.OracleRegression}},
		{"lifecycle (type and fields)", scenario.Expect{Lifecycle: []scenario.ExpectLifecycle{{Type: "lossy_projection", Fields: map[string]string{"block_type": "image"}}}}, nil,
			map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckLifecycle: scenario.OracleContract}},
		{"lifecycle (a wait)", scenario.Expect{Lifecycle: []scenario.ExpectLifecycle{{Type: "llm.retry_scheduled", Fields: map[string]string{"wait": "1s"}}}}, nil,
			map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckLifecycle: scenario.OracleRegression}},
		{"request", scenario.Expect{Requests: []scenario.ExpectRequest{{Path: "/v1/messages"}}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckRequest: scenario.OracleContract}},
		{"waits", scenario.Expect{Waits: []scenario.ExpectWait{{Exact: time.Second}}}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckWaits: scenario.OracleRegression}},
		{"fragments", scenario.Expect{Fragments: FragmentsVerbatim}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckFragments: scenario.OracleContract}},
		// The response here has no raw body: giving one is metis's
		// extension (TestRawOracle has a response with one).
		{"raw (no raw body)", scenario.Expect{Raw: json.RawMessage(`{}`)}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckRaw: scenario.OracleRegression}},
		{"provider_raw", scenario.Expect{ProviderRaw: json.RawMessage(`{}`)}, nil, map[string]scenario.Oracle{CheckError: scenario.OracleContract, CheckProviderRaw: scenario.OracleRegression}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			key, _, _ := strings.Cut(tt.key, " ")
			covered[key] = true
			o := &Outcome{Err: tt.err, Resp: &canonical.Response{}}
			got := map[string]scenario.Oracle{}
			for _, c := range Call(&tt.expect, o, &StepData{Msg: msg}) {
				if c.Oracle == "" { // as Config.oracleChecks sets it
					c.Oracle = OracleOf(c.Name)
				}
				got[c.Name] = c.Oracle
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("oracles (-want +got):\n%s", diff)
			}
		})
	}
	// The keys checked elsewhere: swap and reload steps, the run.
	for name, want := range map[string]scenario.Oracle{
		CheckRefused: scenario.OracleContract, CheckReasons: scenario.OracleRegression, CheckReload: scenario.OracleContract,
		CheckSameAs: scenario.OracleContract, CheckStream: scenario.OracleContract, CheckBoth: scenario.OracleContract, CheckTextMatch: scenario.OracleContract,
	} {
		covered[name] = true
		if got := OracleOf(name); got != want {
			t.Errorf("OracleOf(%s) = %s, want %s", name, got, want)
		}
	}
	covered["text_matches"] = true
	covered["refused"], covered["reasons"] = true, true
	keys := scenario.ExpectKeys()
	if len(keys) < 20 {
		t.Fatalf("scenario.ExpectKeys() = %v: too few keys to be the expect mapping's", keys)
	}
	for _, key := range keys {
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
		oracle scenario.Oracle
	}{
		{"verbatim", `{"id": "x", "system_fingerprint": "fp_1"}`, true, scenario.OracleContract},
		{"a field omitted", `{"id": "x"}`, false, scenario.OracleContract},
		{"none given", ``, false, scenario.OracleRegression},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := expectRaw(want, []byte(tt.raw))
			if c.OK != tt.ok || c.Oracle != tt.oracle {
				t.Errorf("check %+v, want ok %t, oracle %s", c, tt.ok, tt.oracle)
			}
		})
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
		want *scenario.ExpectError
		err  error
		ok   map[string]bool
	}{
		{"all agree", &scenario.ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeOverloaded, Message: "Overloaded"}, overloaded,
			map[string]bool{CheckError: true, CheckErrorDetail: true}},
		{"another text", &scenario.ExpectError{Class: canonical.ErrRateLimit, Message: "Too many"}, overloaded,
			map[string]bool{CheckError: true, CheckErrorDetail: false}},
		{"another finer code", &scenario.ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeQuotaExceeded}, overloaded,
			map[string]bool{CheckError: true, CheckErrorDetail: false}},
		{"another class", &scenario.ExpectError{Class: canonical.ErrServer, Code: canonical.CodeOverloaded}, overloaded,
			map[string]bool{CheckError: false, CheckErrorDetail: true}},
		{"another contract code", &scenario.ExpectError{Class: canonical.ErrRateLimit, Code: canonical.CodeModelNotLoaded}, overloaded,
			map[string]bool{CheckError: false}},
		{"no error", &scenario.ExpectError{Class: canonical.ErrRateLimit, Message: "x"}, nil,
			map[string]bool{CheckError: false}},
	}
	for _, tt := range tests {
		got := map[string]bool{}
		for _, c := range Errors(tt.want, tt.err) {
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

// TestContractCancelledText: a cancelled turn's text and thinking are
// compared as prefixes of one another (the same answer cut at another
// event); anything else about them, and a finished turn's text, still
// differs.
func TestContractCancelledText(t *testing.T) {
	const golden = `[
  {"id": "msg_1", "role": "user", "content": [{"type": "text", "text": "Tell me a story."}], "metadata": {}},
  {"id": "msg_2", "role": "assistant",
   "content": [{"type": "thinking", "text": "A short one."}, {"type": "text", "text": "Once upon a "}],
   "metadata": {"model": "gemini:m", "provider": "gemini", "status": "cancelled"}}
]
`
	tests := []struct {
		name     string
		from, to string
		pass     bool
	}{
		{"same text", "", "", true},
		{"cut later", `"Once upon a "`, `"Once upon a time a light"`, true},
		{"cut earlier", `"Once upon a "`, `"Once "`, true},
		{"cut before any text", `"Once upon a "`, `""`, true},
		{"thinking cut later", `"A short one."`, `"A short one. Or a long one."`, true},
		{"another text", `"Once upon a "`, `"Twice upon a "`, false},
		{"text that is no prefix", `"Once upon a "`, `"Once upon the "`, false},
		{"another block type", `{"type": "text", "text": "Once upon a "}`, `{"type": "thinking", "text": "Once upon a "}`, false},
		{"a block more", `{"type": "text", "text": "Once upon a "}]`, `{"type": "text", "text": "Once upon a "}, {"type": "text", "text": "x"}]`, false},
		{"finished, not cancelled", `"Once upon a "`, `"Once upon a time"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := golden
			if tt.name == "finished, not cancelled" {
				want = strings.Replace(golden, `"cancelled"`, `"complete"`, 1)
			}
			gotRaw := strings.Replace(want, tt.from, tt.to, 1)
			if tt.from != "" && gotRaw == want {
				t.Fatalf("the edit %q → %q changed nothing", tt.from, tt.to)
			}
			got, err := ContractTranscript([]byte(gotRaw))
			if err != nil {
				t.Fatal(err)
			}
			diff, err := ContractGoldenDiff([]byte(want), got)
			if err != nil {
				t.Fatal(err)
			}
			if (diff == "") != tt.pass {
				t.Errorf("contract comparison passes: %t, want %t; diff:\n%s", diff == "", tt.pass, diff)
			}
		})
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
