package providers_test

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/wire"
)

// TestWireErrorsClassify serves every failure internal/wire renders —
// the bytes the emulator answers and fault injection injects — to the
// adapter of its protocol, and checks the class and code the adapter
// gives it. The emulator, the faults and the adapters read one table, so
// they cannot drift apart again (Gemini's bad key was 400
// API_KEY_INVALID in the emulator and 401 UNAUTHENTICATED in the faults).
func TestWireErrorsClassify(t *testing.T) {
	apis := []struct {
		api       wire.API
		typ       string
		model     string
		stream    bool
		overClass canonical.ErrorClass // the class of Overloaded
	}{
		{wire.Anthropic, "anthropic", "anthropic:claude-sonnet-4-6", true, canonical.ErrRateLimit},
		{wire.OpenAIResponses, "openai", "openai:gpt-5", true, canonical.ErrServer},
		{wire.OpenAIChat, "openai-chat", "openai:gpt-4.1", true, canonical.ErrServer},
		{wire.Gemini, "gemini", "gemini:gemini-2.5-flash", true, canonical.ErrServer},
		{wire.Vertex, "vertex", "vertex:gemini-2.5-flash", true, canonical.ErrServer},
		{wire.VertexAnthropic, "vertex-anthropic", "vertex-anthropic:claude-sonnet-4-6", true, canonical.ErrRateLimit},
		{wire.AzureResponses, "azure", "azure:gpt-5", true, canonical.ErrServer},
		{wire.AzureChat, "azure-chat", "azure:gpt-4.1", true, canonical.ErrServer},
		{wire.Bedrock, "bedrock", "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", true, canonical.ErrServer},
		{wire.BedrockConverse, "bedrock-converse", "bedrock-converse:us.anthropic.claude-sonnet-4-5-20250929-v1:0", true, canonical.ErrServer},
	}
	type outcome struct {
		Status int
		Class  canonical.ErrorClass
		Code   string
	}
	for _, a := range apis {
		want := map[wire.Kind]outcome{
			wire.InvalidRequest:  {400, canonical.ErrInvalidRequest, ""},
			wire.Auth:            {401, canonical.ErrAuth, ""},
			wire.MissingKey:      {401, canonical.ErrAuth, ""},
			wire.RateLimit:       {429, canonical.ErrRateLimit, ""},
			wire.Overloaded:      {503, a.overClass, canonical.CodeOverloaded},
			wire.Server:          {500, canonical.ErrServer, ""},
			wire.ContextOverflow: {400, canonical.ErrContextOverflow, ""},
			wire.ModelNotFound:   {404, canonical.ErrInvalidRequest, canonical.CodeModelNotFound},
		}
		switch a.api {
		case wire.Anthropic:
			want[wire.Overloaded] = outcome{529, canonical.ErrRateLimit, canonical.CodeOverloaded}
		case wire.Gemini:
			// The real API: a bad key is 400 INVALID_ARGUMENT with reason
			// API_KEY_INVALID; no key at all is 403 PERMISSION_DENIED.
			want[wire.Auth] = outcome{400, canonical.ErrAuth, ""}
			want[wire.MissingKey] = outcome{403, canonical.ErrAuth, ""}
		case wire.Vertex:
			// Vertex AI refuses a missing or bad OAuth token with 401
			// UNAUTHENTICATED, not the Gemini API's key errors.
			want[wire.Auth] = outcome{401, canonical.ErrAuth, ""}
			want[wire.MissingKey] = outcome{401, canonical.ErrAuth, ""}
		case wire.VertexAnthropic:
			// The model's own errors are the Messages API's.
			want[wire.Overloaded] = outcome{529, canonical.ErrRateLimit, canonical.CodeOverloaded}
		case wire.Bedrock, wire.BedrockConverse:
			want[wire.Auth] = outcome{403, canonical.ErrAuth, ""}
			want[wire.MissingKey] = outcome{403, canonical.ErrAuth, ""}
			want[wire.Overloaded] = outcome{503, canonical.ErrServer, canonical.CodeOverloaded}
			// An unknown model id is a 400 ValidationException on Bedrock (both APIs).
			want[wire.ModelNotFound] = outcome{400, canonical.ErrInvalidRequest, canonical.CodeModelNotFound}
		default:
			want[wire.Overloaded] = outcome{503, canonical.ErrServer, ""}
		}
		for kind, w := range want {
			t.Run(string(a.api)+"/"+string(kind), func(t *testing.T) {
				e := wire.ErrorFor(a.api, kind, "m")
				srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
					for k, vs := range e.Header(a.api) {
						rw.Header()[k] = vs
					}
					rw.WriteHeader(e.Status)
					rw.Write(e.Body(a.api))
				}))
				defer srv.Close()
				ad := openBuiltin(t, a.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) { c.MaxRetries = 0 })
				_, err := ad.Complete(context.Background(), userRequest(a.model))
				got := outcome{Class: canonical.ClassOf(err), Code: canonical.CodeOf(err), Status: e.Status}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Errorf("(-want +got):\n%s\nbody: %s\nerror: %v", diff, e.Body(a.api), err)
				}
			})
		}
	}
}

// TestWireErrorEventsClassify: the mid-stream error events internal/wire
// renders (what the faults inject, in each protocol's own shape) reach the
// caller as the adapter's typed error, after message.complete with stop
// reason error.
func TestWireErrorEventsClassify(t *testing.T) {
	for _, a := range []struct {
		api   wire.API
		typ   string
		model string
		class canonical.ErrorClass
	}{
		{wire.Anthropic, "anthropic", "anthropic:claude-sonnet-4-6", canonical.ErrServer},
		{wire.OpenAIResponses, "openai", "openai:gpt-5", canonical.ErrServer},
		{wire.OpenAIChat, "openai-chat", "openai:gpt-4.1", canonical.ErrServer},
		{wire.Gemini, "gemini", "gemini:gemini-2.5-flash", canonical.ErrServer},
		{wire.Vertex, "vertex", "vertex:gemini-2.5-flash", canonical.ErrServer},
		{wire.VertexAnthropic, "vertex-anthropic", "vertex-anthropic:claude-sonnet-4-6", canonical.ErrServer},
		{wire.AzureResponses, "azure", "azure:gpt-5", canonical.ErrServer},
		{wire.AzureChat, "azure-chat", "azure:gpt-4.1", canonical.ErrServer},
		{wire.Bedrock, "bedrock", "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", canonical.ErrServer},
		{wire.BedrockConverse, "bedrock-converse", "bedrock-converse:us.anthropic.claude-sonnet-4-5-20250929-v1:0", canonical.ErrServer},
	} {
		t.Run(string(a.api), func(t *testing.T) {
			ad := openBuiltin(t, a.typ, "http://127.0.0.1:1", "sk-test-FAKE", nil)
			sb, ok := ad.(interface {
				StreamBody(*canonical.Request, io.Reader) iter.Seq2[canonical.StreamEvent, error]
			})
			if !ok {
				t.Fatalf("%T has no StreamBody", ad)
			}
			body := wire.ErrorFor(a.api, wire.Server, "m").Event(a.api, nil)
			evs, err := adaptertest.Collect(sb.StreamBody(userRequest(a.model), bytes.NewReader(body)))
			if got := canonical.ClassOf(err); got != a.class {
				t.Fatalf("class = %q (%v), want %q; body %q", got, err, a.class, body)
			}
			if n := len(evs); n == 0 || evs[n-1].Type != canonical.EventMessageComplete || evs[n-1].Response.StopReason != canonical.StopError {
				t.Errorf("events %+v: want message.complete with stop reason error last", evs)
			}
		})
	}
}

// TestWireBedrockOverloadedEvent: an overloaded model mid-stream on
// Bedrock is a modelStreamErrorException carrying the model's 529, which
// the adapter classifies as Anthropic's overload.
func TestWireBedrockOverloadedEvent(t *testing.T) {
	ad := openBuiltin(t, "bedrock", "http://127.0.0.1:1", "sk-test-FAKE", nil)
	sb := ad.(interface {
		StreamBody(*canonical.Request, io.Reader) iter.Seq2[canonical.StreamEvent, error]
	})
	body := wire.ErrorFor(wire.Bedrock, wire.Overloaded, "m").Event(wire.Bedrock, nil)
	_, err := adaptertest.Collect(sb.StreamBody(userRequest("bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0"), bytes.NewReader(body)))
	if diff := cmp.Diff([]string{string(canonical.ErrRateLimit), canonical.CodeOverloaded}, []string{string(canonical.ClassOf(err)), canonical.CodeOf(err)}); diff != "" {
		t.Errorf("(-want +got):\n%s\nerror: %v", diff, err)
	}
}
