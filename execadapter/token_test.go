package execadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/execadapter"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/protocol"
)

// tokenFake is a v2 child for the token lines. tokens-minor1 declares
// minor 1 and, told tokens, asks for one per complete and answers the
// call with an error quoting metis's answer line; tokens-old declares no
// minor version; tokens-unasked asks for a token whatever init said;
// tokens-unknown asks for one for a call that is not in flight.
func tokenFake(mode string) int {
	r := protocol.NewLineReader(os.Stdin)
	out := func(s string) { fmt.Fprintln(os.Stdout, s) }
	told := false
	for {
		line, _, err := r.ReadLine()
		if err != nil {
			return 0
		}
		var m protocol.Message
		json.Unmarshal(line, &m)
		switch m.Type {
		case protocol.TypeInit:
			told = m.Config.Tokens
			minor := `,"minor":1`
			if mode == "tokens-old" {
				minor = ""
			}
			out(`{"type":"ready","id":"` + m.ID + `","protocol":"metis.adapter/v2","adapter":{"name":"fake"}` + minor + `}`)
		case protocol.TypeCapabilities:
			caps, _ := json.Marshal(canonical.Capabilities{SupportsStreaming: true, SupportsSystemPrompt: true, MaxContextTokens: 1000, MaxOutputTokens: 100})
			out(`{"type":"capabilities","id":"` + m.ID + `","capabilities":` + string(caps) + `}`)
		case protocol.TypeComplete:
			switch {
			case mode == "tokens-unknown":
				out(`{"type":"token","id":"99"}`)
				continue
			case told || mode == "tokens-unasked":
				out(`{"type":"token","id":"` + m.ID + `"}`)
				answer, _, err := r.ReadLine()
				if err != nil {
					return 0
				}
				text, _ := json.Marshal(string(answer))
				out(`{"type":"error","id":"` + m.ID + `","error":{"class":"other","message":` + string(text) + `}}`)
			default:
				out(`{"type":"error","id":"` + m.ID + `","error":{"class":"other","message":"told no tokens"}}`)
			}
		}
	}
}

// tokenSource hands out tok-1, tok-2, ... expiring an hour after a fixed
// time, or fails with err.
type tokenSource struct {
	mu  sync.Mutex
	n   int
	err error
}

var tokenEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (s *tokenSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	s.n++
	return &oauth2.Token{AccessToken: fmt.Sprintf("tok-%d", s.n), Expiry: tokenEpoch.Add(time.Hour)}, nil
}

// startTokens starts tokenFake in mode with ts as the config's token
// source (nil: none), recording the lines metis writes.
func startTokens(t *testing.T, mode string, ts oauth2.TokenSource, opts execadapter.Options) (*execadapter.Adapter, *[]string, error) {
	t.Helper()
	var mu sync.Mutex
	var lines []string
	opts.Command, opts.Env = []string{os.Args[0]}, []string{fakeEnv + "=" + mode}
	opts.Trace = func(dir string, line []byte) {
		if dir == "metis" {
			mu.Lock()
			lines = append(lines, string(line))
			mu.Unlock()
		}
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	a, err := execadapter.New(adapters.Config{Name: "vertex", Type: "vertex", Models: map[string]adapters.ModelConfig{}, Tokens: ts}, opts)
	return a, &lines, err
}

func completeOnce(a *execadapter.Adapter) error {
	_, err := a.Complete(context.Background(), &canonical.Request{RequestID: "req_1", Model: "vertex:x", Messages: []canonical.Message{}})
	return err
}

// A child that declares minor 1 is told tokens (after a first start that
// learns it, unless Options.Minor says so), and its token line is
// answered from the source, expiry and all; a failing source answers
// with an auth error line. Every line metis writes is valid v2.
func TestTokenLinesAnswered(t *testing.T) {
	for _, known := range []int{0, 1} {
		t.Run(fmt.Sprintf("minor-known-%d", known), func(t *testing.T) {
			a, lines, err := startTokens(t, "tokens-minor1", &tokenSource{}, execadapter.Options{Minor: known})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			err = completeOnce(a)
			want := `{"type":"token","id":"2","token":{"access_token":"tok-1","expires_at":"2026-01-01T01:00:00Z"}}`
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("the child got %v; want metis's answer %s", err, want)
			}
			inits := 0
			for _, l := range *lines {
				if err := protocol.ValidateToAdapter([]byte(l)); err != nil {
					t.Errorf("metis wrote an invalid line: %v: %s", err, l)
				}
				if strings.Contains(l, `"type":"init"`) {
					inits++
				}
			}
			if wantInits := 2 - known; inits != wantInits {
				t.Errorf("%d inits written, want %d (a child not known to speak minor 1 is asked first)", inits, wantInits)
			}
		})
	}
	t.Run("source-fails", func(t *testing.T) {
		a, _, err := startTokens(t, "tokens-minor1", &tokenSource{err: errors.New("refresh token revoked")}, execadapter.Options{Minor: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		err = completeOnce(a)
		if err == nil || !strings.Contains(err.Error(), `"type":"error"`) || !strings.Contains(err.Error(), `"class":"auth"`) || !strings.Contains(err.Error(), "refresh token revoked") {
			t.Errorf("the child got %v; want an auth error line naming the source's failure", err)
		}
		if len(a.Problems()) != 0 {
			t.Errorf("problems: %+v", a.Problems())
		}
	})
}

// A child without minor 1 never receives tokens in init: with a token
// source, New fails with ErrTokensUnsupported naming the missing minor
// version; without one, it runs as before.
func TestOldChildIsNeverToldTokens(t *testing.T) {
	_, lines, err := startTokens(t, "tokens-old", &tokenSource{}, execadapter.Options{})
	if !errors.Is(err, adapters.ErrTokensUnsupported) || !strings.Contains(err.Error(), "without minor version 1") {
		t.Errorf("New: %v; want ErrTokensUnsupported naming minor version 1", err)
	}
	for _, l := range *lines {
		if strings.Contains(l, `"tokens"`) {
			t.Errorf("an old child was sent %s", l)
		}
	}
	a, _, err := startTokens(t, "tokens-old", nil, execadapter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := completeOnce(a); err == nil || !strings.Contains(err.Error(), "told no tokens") {
		t.Errorf("got %v, want the child's own error", err)
	}
}

// A token line metis did not offer, or for no call in flight, is a
// protocol problem naming the line.
func TestUnaskedTokenLines(t *testing.T) {
	for _, tc := range []struct {
		mode string
		ts   oauth2.TokenSource
		want string
	}{
		{"tokens-unasked", nil, `line 2: a token line for id "2", but init's config did not say tokens`},
		{"tokens-unknown", &tokenSource{}, `line 2: a "token" line for id "99", which is no call in flight`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			a, _, err := startTokens(t, tc.mode, tc.ts, execadapter.Options{Minor: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			err = completeOnce(a)
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) || ae.Code != execadapter.CodeAdapterProcess {
				t.Fatalf("got %v, want an adapter_process error", err)
			}
			if all := err.Error() + "\n" + problems(a); !strings.Contains(all, tc.want) {
				t.Errorf("error and problems lack %q:\n%s", tc.want, all)
			}
		})
	}
}

// Factory learns the minor version from the first child's ready: the
// next adapter it builds with a token source starts once.
func TestFactoryLearnsMinor(t *testing.T) {
	var mu sync.Mutex
	inits := 0
	f := execadapter.Factory(execadapter.Options{Command: []string{os.Args[0]}, Env: []string{fakeEnv + "=tokens-minor1"}, Timeout: 5 * time.Second,
		Trace: func(dir string, line []byte) {
			if dir == "metis" && strings.Contains(string(line), `"type":"init"`) {
				mu.Lock()
				inits++
				mu.Unlock()
			}
		}})
	for _, ts := range []oauth2.TokenSource{nil, &tokenSource{}} {
		a, err := f(adapters.Config{Name: "vertex", Type: "vertex", Models: map[string]adapters.ModelConfig{}, Tokens: ts})
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
	}
	if inits != 2 {
		t.Errorf("%d inits for two adapters; want 2 (the minor version learned from the first)", inits)
	}
}

// tokenScenarios script OAuth tokens on the run's clock.
var tokenScenarios = []string{"credentials/token-expires-mid-session", "credentials/unauthorized-new-token"}

// metis's own token-taking adapters, served through protocol.Serve (the
// shim) and driven through execadapter, pass the token scenarios on
// every column: each token reaches the child with a token line.
func TestTokenScenariosThroughTheShim(t *testing.T) {
	srv, err := replay.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, provider := range []string{"vertex", "vertex-anthropic", "azure"} {
		t.Run(provider, func(t *testing.T) {
			var mu sync.Mutex
			tokenLines := 0
			lines := &lineChecker{}
			trace := func(dir string, line []byte) {
				lines.trace(dir, line)
				if dir == "adapter" && strings.Contains(string(line), `"type":"token"`) {
					mu.Lock()
					tokenLines++
					mu.Unlock()
				}
			}
			target := certify.Target{Provider: provider, Kind: "exec", Command: shim,
				New: execadapter.Factory(execadapter.Options{Command: []string{shim}, Trace: trace, HangSignal: hangSignal})}
			plan, err := certify.NewPlan(target, certify.Options{Server: srv, IDs: tokenScenarios})
			if err != nil {
				t.Fatal(err)
			}
			report, err := plan.Certify(context.Background(), 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, res := range report.Results() {
				ran = append(ran, res.ID)
				if res.Status != harness.StatusPass {
					t.Errorf("%s: %s: %s", res.Name(), res.Status, res.Reason)
					for _, f := range res.Findings {
						t.Logf("  %s", f)
					}
				}
			}
			for _, id := range tokenScenarios {
				if !slices.Contains(ran, id) {
					t.Errorf("%s did not run on %s (ran %v): the certify plan left it out", id, provider, ran)
				}
			}
			if tokenLines == 0 {
				t.Error("the child asked for no token")
			}
			if lines.n == 0 || len(lines.errs) > 0 {
				t.Errorf("%d lines written; invalid ones: %v", lines.n, lines.errs)
			}
		})
	}
}

// An exec adapter that declares no minor version 1 cannot take the
// scenario's tokens: its runs skip, naming the missing token support,
// and never pass.
func TestTokenScenariosSkipAnOldAdapter(t *testing.T) {
	srv, err := replay.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	target := certify.Target{Provider: "vertex", Kind: "exec", Command: "fake",
		New: execadapter.Factory(execadapter.Options{Command: []string{os.Args[0]}, Env: []string{fakeEnv + "=tokens-old"}, Timeout: 5 * time.Second})}
	plan, err := certify.NewPlan(target, certify.Options{Server: srv, IDs: tokenScenarios})
	if err != nil {
		t.Fatal(err)
	}
	report, err := plan.Certify(context.Background(), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	results := report.Results()
	if len(results) != len(tokenScenarios) {
		t.Fatalf("%d runs, want %d", len(results), len(tokenScenarios))
	}
	for _, res := range results {
		if res.Status != harness.StatusSkip || !strings.Contains(res.Reason, "cannot take a token source") || !strings.Contains(res.Reason, "minor version 1") {
			t.Errorf("%s: %s: %s; want a skip naming the missing token support", res.Name(), res.Status, res.Reason)
		}
	}
}
