package certify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/replay"
)

// An adapter written by someone else sends the same requests in other
// wire forms the API treats alike. Certification matches requests
// semantically (docs/request-matching.md): such an adapter certifies,
// while one that changes what a request means does not, and the failure
// names the field.

// rewriter is the other adapter's own HTTP transport: it rewrites each
// request body before it goes out.
type rewriter struct {
	next    http.RoundTripper
	rewrite func(path string, body map[string]any)
}

func (rw rewriter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Method != http.MethodPost {
		return rw.next.RoundTrip(req)
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(data, &body); err == nil {
		rw.rewrite(req.URL.Path, body)
		if data, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(data))
	out.ContentLength = int64(len(data))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	if out.Header.Get("anthropic-version") != "" {
		out.Header.Add("anthropic-beta", "token-efficient-tools-2025-02-19")
	}
	return rw.next.RoundTrip(out)
}

// wrapped is metis's built-in adapter for provider under a rewriter.
func wrapped(t *testing.T, provider string, rewrite func(string, map[string]any)) adapters.Factory {
	t.Helper()
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	c, err := reg.Config(provider, func(string) string { return "k" })
	if err != nil {
		t.Fatal(err)
	}
	builtin := providers.Factories()[c.Type]
	return func(c adapters.Config) (adapters.Adapter, error) {
		hc := http.Client{}
		if c.HTTPClient != nil {
			hc = *c.HTTPClient
		}
		next := hc.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		hc.Transport = rewriter{next: next, rewrite: rewrite}
		c.HTTPClient = &hc
		return builtin(c)
	}
}

// anthropicForms rewrites a Messages request into equivalent forms: the
// system prompt and every string content as one text block, no
// "stream": false, tool results' content as blocks without is_error:
// false, an explicit default tool_choice, and (in RoundTrip) an extra
// anthropic-beta flag.
func anthropicForms(_ string, b map[string]any) {
	if b["stream"] == false {
		delete(b, "stream")
	}
	if s, ok := b["system"].(string); ok {
		b["system"] = []any{map[string]any{"type": "text", "text": s}}
	}
	if _, ok := b["tools"]; ok && b["tool_choice"] == nil {
		b["tool_choice"] = map[string]any{"type": "auto"}
	}
	for _, m := range list(b["messages"]) {
		if s, ok := m["content"].(string); ok {
			m["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
		for _, block := range list(m["content"]) {
			if block["type"] != "tool_result" {
				continue
			}
			if block["is_error"] == false {
				delete(block, "is_error")
			}
			if s, ok := block["content"].(string); ok && s != "" {
				block["content"] = []any{map[string]any{"type": "text", "text": s}}
			}
		}
	}
}

// chatForms rewrites a Chat Completions request into equivalent forms:
// string content as text parts, an assistant tool-call turn's content
// as "", tool-call arguments re-spaced, and the documented defaults
// (n: 1, tool_choice auto with tools) spelled out.
func chatForms(path string, b map[string]any) {
	if !strings.HasSuffix(path, "/chat/completions") {
		return
	}
	b["n"] = 1
	if _, ok := b["tools"]; ok && b["tool_choice"] == nil {
		b["tool_choice"] = "auto"
	}
	for _, m := range list(b["messages"]) {
		calls := list(m["tool_calls"])
		if s, ok := m["content"].(string); ok && len(calls) == 0 && m["role"] != "tool" {
			m["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
		if len(calls) > 0 && m["content"] == nil {
			m["content"] = ""
		}
		for _, c := range calls {
			f, _ := c["function"].(map[string]any)
			if args, ok := f["arguments"].(string); ok {
				var v any
				if json.Unmarshal([]byte(args), &v) == nil {
					spaced, _ := json.MarshalIndent(v, "", " ")
					f["arguments"] = string(spaced)
				}
			}
		}
	}
}

func list(v any) []map[string]any {
	a, _ := v.([]any)
	var out []map[string]any
	for _, e := range a {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func certifyWith(t *testing.T, provider string, newAdapter adapters.Factory, overHTTP bool, skip ...string) *certify.Report {
	t.Helper()
	opts := certify.Options{Profiles: []string{certify.ProfileCore, certify.ProfileTools, certify.ProfileStreaming}, Skip: skip}
	if overHTTP {
		srv, err := replay.NewServer()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		opts.Server = srv
	}
	plan, err := certify.NewPlan(certify.Target{Provider: provider, New: newAdapter, Name: "rewriting", Version: "0", Kind: "go"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) == 0 {
		t.Fatalf("no %s run in the core, tools and streaming profiles", provider)
	}
	report, err := plan.Certify(context.Background(), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return report
}

// contractFailures lists the runs' error findings, and the failed runs
// with no finding to explain them. Certification checks the contract
// alone (requests.json, metis's own bytes, is not compared), so every
// failure counts.
func contractFailures(r *certify.Report) []string {
	var out []string
	for _, run := range r.Runs {
		if run.Status != harness.StatusFail {
			continue
		}
		explained := false
		for _, f := range run.Findings {
			if f.Level != harness.LevelError {
				continue
			}
			explained = true
			out = append(out, fmt.Sprintf("%s [%s]: %s: %s", run.Scenario, run.Model, f.ID, f.Message))
		}
		if !explained {
			out = append(out, fmt.Sprintf("%s [%s]: %s", run.Scenario, run.Model, run.Reason))
		}
	}
	return out
}

func TestEquivalentWireFormsCertify(t *testing.T) {
	for _, c := range []struct {
		provider string
		rewrite  func(string, map[string]any)
		overHTTP bool
		skip     []string
	}{
		{"anthropic", anthropicForms, false, nil},
		// The same over the replay server, as `conform certify --exec`
		// reaches it, the adapter with its own HTTP client.
		{"anthropic", anthropicForms, true, []string{"faults/reset"}},
		{"openrouter", chatForms, false, nil},
	} {
		name := c.provider
		if c.overHTTP {
			name += "/over-http"
		}
		t.Run(name, func(t *testing.T) {
			report := certifyWith(t, c.provider, wrapped(t, c.provider, c.rewrite), c.overHTTP, c.skip...)
			if fails := contractFailures(report); len(fails) > 0 {
				t.Errorf("an adapter that differs only in equivalent wire forms fails %d check(s):\n%s", len(fails), strings.Join(fails, "\n"))
			}
			if ran := report.Counts.Passed + report.Counts.Failed; ran < 10 {
				t.Errorf("only %d run(s) ran: %+v", ran, report.Counts)
			}
		})
	}
}

func TestSemanticChangesDoNotCertify(t *testing.T) {
	dropRequired := func(_ string, b map[string]any) {
		for _, tool := range list(b["tools"]) {
			if s, ok := tool["input_schema"].(map[string]any); ok {
				delete(s, "required")
			}
		}
	}
	dropSignature := func(_ string, b map[string]any) {
		for _, m := range list(b["messages"]) {
			for _, block := range list(m["content"]) {
				if block["type"] == "thinking" {
					delete(block, "signature")
				}
			}
		}
	}
	for _, c := range []struct {
		name, id, field string
		rewrite         func(string, map[string]any)
		profiles        []string
	}{
		{"required dropped", "tools/*", ".input_schema.required: want [", dropRequired, nil},
		{"signature lost", "thinking/*", ".signature: want ", dropSignature, []string{certify.ProfileThinking}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := certify.Options{IDs: []string{c.id}, Profiles: c.profiles}
			plan, err := certify.NewPlan(certify.Target{Provider: "anthropic", New: wrapped(t, "anthropic", c.rewrite), Kind: "go"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			report, err := plan.Certify(context.Background(), 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if report.Certified {
				t.Fatalf("certified an adapter whose requests lose %s", c.name)
			}
			named := 0
			for _, run := range report.Runs {
				for _, f := range run.Findings {
					if f.ID == "replay/request" && strings.Contains(f.Message, c.field) && strings.HasPrefix(f.Message, "request ") {
						if named == 0 {
							t.Logf("%s [%s]: %s", run.Scenario, run.Model, f)
						}
						named++
					}
				}
			}
			if named == 0 {
				t.Errorf("no replay/request finding names %q; failures:\n%s", c.field, strings.Join(contractFailures(report), "\n"))
			}
		})
	}
}

// resultRuns calls do with each run of two or more consecutive tool
// results in a request: Anthropic's tool_result blocks in a user turn,
// Chat's tool messages.
func resultRuns(b map[string]any, do func(run []any)) {
	isResult := func(v any) bool {
		m, _ := v.(map[string]any)
		return m["type"] == "tool_result" || m["role"] == "tool"
	}
	each := func(items []any) {
		for i := 0; i < len(items); {
			j := i
			for j < len(items) && isResult(items[j]) {
				j++
			}
			if j-i > 1 {
				do(items[i:j])
			}
			i = max(j, i+1)
		}
	}
	msgs, _ := b["messages"].([]any)
	each(msgs)
	for _, m := range list(msgs) {
		c, _ := m["content"].([]any)
		each(c)
	}
}

// TestResultsInAnyOrderCertify: the APIs pair a result with its call by
// id, so an adapter sending parallel results in another order than
// metis's certifies, and one pairing a result with another call's
// content does not, the finding naming the content.
func TestResultsInAnyOrderCertify(t *testing.T) {
	reverse := func(_ string, b map[string]any) {
		resultRuns(b, func(run []any) { slices.Reverse(run) })
	}
	mispair := func(_ string, b map[string]any) {
		resultRuns(b, func(run []any) {
			x, y := run[0].(map[string]any), run[1].(map[string]any)
			x["content"], y["content"] = y["content"], x["content"]
		})
	}
	for _, provider := range []string{"anthropic", "openrouter"} {
		t.Run(provider, func(t *testing.T) {
			certifyRun := func(rewrite func(string, map[string]any)) *certify.Report {
				opts := certify.Options{IDs: []string{"tools/parallel-reordered"}, Profiles: []string{certify.ProfileTools}}
				plan, err := certify.NewPlan(certify.Target{Provider: provider, New: wrapped(t, provider, rewrite), Kind: "go"}, opts)
				if err != nil {
					t.Fatal(err)
				}
				report, err := plan.Certify(context.Background(), 1, nil)
				if err != nil {
					t.Fatal(err)
				}
				if report.Counts.Passed+report.Counts.Failed == 0 {
					t.Fatalf("no run: %+v", report.Counts)
				}
				return report
			}
			if fails := contractFailures(certifyRun(reverse)); len(fails) > 0 {
				t.Errorf("results in another order fail %d check(s):\n%s", len(fails), strings.Join(fails, "\n"))
			}
			report := certifyRun(mispair)
			if report.Certified {
				t.Fatal("certified an adapter pairing results with other calls' contents")
			}
			named := false
			for _, run := range report.Runs {
				for _, f := range run.Findings {
					named = named || f.ID == "replay/request" && strings.Contains(f.Message, ".content[0].text: want ")
				}
			}
			if !named {
				t.Errorf("no replay/request finding names a result's content; failures:\n%s", strings.Join(contractFailures(report), "\n"))
			}
		})
	}
}
