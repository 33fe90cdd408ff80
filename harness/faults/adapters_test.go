package faults_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness/faults"
)

// toEmulator sends every request to the emulator at target, keeping the
// path, as a recording against it does.
type toEmulator struct{ target *url.URL }

func (t toEmulator) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.target.Scheme, t.target.Host, ""
	return http.DefaultTransport.RoundTrip(r)
}

// TestAdaptersClassifyInjectedFaults runs the real adapters over the
// emulator with each fault in front, and checks that every injected wire
// form is read as the failure it stands for (000 §6.2, §6.5).
func TestAdaptersClassifyInjectedFaults(t *testing.T) {
	srv := emulator.NewServer(emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) {
		return emulator.Reply{Text: "Once upon a time, a lighthouse keeper counted ships instead of sheep."}, nil
	}))
	t.Cleanup(srv.Close)
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)

	models := []string{"anthropic:claude-sonnet-4-6", "openai:gpt-5", "openai:gpt-4.1", "gemini:gemini-2.5-flash"}
	tests := []struct {
		name      string
		fault     faults.Fault
		wantClass map[string]canonical.ErrorClass // by model; "" key for all
		wantCode  string
		wantStop  bool // a stream that started must end with stop_reason error
	}{
		{"429", faults.Fault{Kind: faults.KindStatus, Status: 429, Header: http.Header{"Retry-After": {"2"}}},
			map[string]canonical.ErrorClass{"": canonical.ErrRateLimit}, "", false},
		{"500", faults.Fault{Kind: faults.KindStatus, Status: 500},
			map[string]canonical.ErrorClass{"": canonical.ErrServer}, "", false},
		{"401", faults.Fault{Kind: faults.KindStatus, Status: 401},
			map[string]canonical.ErrorClass{"": canonical.ErrAuth}, "", false},
		{"context overflow", faults.Fault{Kind: faults.KindStatus, Error: faults.ErrorContextOverflow},
			map[string]canonical.ErrorClass{"": canonical.ErrContextOverflow}, "", false},
		{"reset", faults.Fault{Kind: faults.KindReset, AfterEvents: faults.BeforeResponse},
			map[string]canonical.ErrorClass{"": canonical.ErrNetwork}, "", false},
		{"truncate", faults.Fault{Kind: faults.KindTruncate, AfterEvents: 2},
			map[string]canonical.ErrorClass{"": canonical.ErrNetwork}, canonical.CodeStreamTruncated, true},
		{"malformed", faults.Fault{Kind: faults.KindMalformed, AfterEvents: 2},
			map[string]canonical.ErrorClass{"": canonical.ErrServer}, canonical.CodeInvalidResponse, true},
		{"error event", faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 2, Error: faults.ErrorServer},
			map[string]canonical.ErrorClass{"": canonical.ErrServer}, "", true},
	}
	for _, tt := range tests {
		for _, model := range models {
			t.Run(tt.name+"/"+model, func(t *testing.T) {
				mc, err := reg.Resolve(model)
				require.NoError(t, err)
				in := faults.Transport(toEmulator{target}, tt.fault)
				a, err := reg.Open(mc.Adapter, providers.Factories(), func(string) string { return "sk-test-FAKE" }, func(c *adapters.Config) {
					c.HTTPClient = &http.Client{Transport: in}
					c.MaxRetries = 0
					c.Timeout = time.Minute
				})
				require.NoError(t, err)
				defer a.Close()
				req := &canonical.Request{Model: model, Stream: true, MaxOutputTokens: 256, Messages: []canonical.Message{{
					ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Tell me a story."}},
				}}}
				var last canonical.StreamEvent
				var gotErr error
				for ev, err := range a.Stream(context.Background(), req) {
					if err != nil {
						gotErr = err
						continue
					}
					last = ev
				}
				require.Error(t, gotErr)
				want := tt.wantClass[""]
				assert.Equal(t, want, canonical.ClassOf(gotErr), "%v", gotErr)
				if tt.wantCode != "" {
					assert.Equal(t, tt.wantCode, canonical.CodeOf(gotErr), "%v", gotErr)
				}
				if tt.wantStop {
					require.Equal(t, canonical.EventMessageComplete, last.Type, "a started stream completes before failing")
					assert.Equal(t, canonical.StopError, last.Response.StopReason)
				}
				assert.Equal(t, 1, in.Injected())
			})
		}
	}
}
