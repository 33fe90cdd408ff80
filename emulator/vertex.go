package emulator

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/metis-llm/metis/internal/wire"
)

// VertexAnthropicVersion is the anthropic_version Vertex AI's Claude
// bodies must carry.
const VertexAnthropicVersion = "vertex-2023-10-16"

// serveVertex answers Vertex AI's publisher-model routes. m is the
// route's match: version, project, location, publisher, model, method.
// The token is an OAuth bearer token (the emulator's key); a missing or
// wrong one is Vertex's 401 UNAUTHENTICATED.
func (s *Server) serveVertex(w http.ResponseWriter, r *http.Request, body []byte, m []string) {
	location, publisher, model, method := m[3], m[4], m[5], m[6]
	// The global location is served at the host without a region, a
	// region at {region}-aiplatform.googleapis.com; a location asked of
	// another location's host is not found there.
	if host := hostOnly(r.Host); strings.HasSuffix(host, "aiplatform.googleapis.com") {
		want := "aiplatform.googleapis.com"
		if location != "global" {
			want = location + "-" + want
		}
		if host != want {
			errorFor(API(wire.Vertex), ErrorInvalidRequest, fmt.Sprintf("Location %s is not served by the endpoint %s; use %s.", location, host, want), model, s.reserve(1).id("req_emu_")).write(w)
			return
		}
	}
	if publisher == "anthropic" {
		s.serveVertexAnthropic(w, r, body, model, method)
		return
	}
	if method != "generateContent" && method != "streamGenerateContent" {
		writePlainError(w, http.StatusNotFound, fmt.Sprintf("emulator: no Vertex AI method %q (want generateContent or streamGenerateContent)", method))
		return
	}
	token := bearer(r)
	if !s.checkKey(w, wire.Vertex, token, model) {
		return
	}
	h := r.Header.Clone()
	h.Del("Authorization")
	h.Set("X-Goog-Api-Key", token)
	rec := vendor(r, "/v1beta/models/"+model+":"+method, h, body, s.serveGemini)
	responseID := s.reserve(1).id("vertex_emu_") // one per response, on every chunk
	extras := func(v map[string]any) {
		if _, ok := v["candidates"]; !ok {
			return // an error status inside the stream
		}
		v["createTime"] = s.cfg.created.UTC().Format("2006-01-02T15:04:05.000000Z")
		v["responseId"] = responseID
		if u, ok := v["usageMetadata"].(map[string]any); ok {
			u["trafficType"] = "ON_DEMAND"
		}
	}
	switch {
	case rec.Code != http.StatusOK:
		pass(w, rec, rec.Body.Bytes())
	case strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream"):
		events := splitSSE(rec.Body.Bytes())
		for i := range events {
			events[i].data = jsonEdit(events[i].data, extras)
		}
		pass(w, rec, joinSSE(events, "\r\n"))
	default:
		pass(w, rec, jsonEdit(rec.Body.Bytes(), extras))
	}
}

// serveVertexAnthropic answers rawPredict and streamRawPredict: the body
// must carry anthropic_version vertex-2023-10-16 and no model (the URL
// names it), and say "stream": true exactly on streamRawPredict. Vertex
// answers its own failures (credentials, quota, unknown models) with
// google.rpc.Status bodies; the model's own are the Messages API's.
func (s *Server) serveVertexAnthropic(w http.ResponseWriter, r *http.Request, body []byte, model, method string) {
	if method != "rawPredict" && method != "streamRawPredict" {
		writePlainError(w, http.StatusNotFound, fmt.Sprintf("emulator: no Vertex AI method %q for Claude (want rawPredict or streamRawPredict)", method))
		return
	}
	token := bearer(r)
	if !s.checkKey(w, wire.VertexAnthropic, token, model) {
		return
	}
	invalid := func(msg string) {
		errorFor(API(wire.VertexAnthropic), ErrorInvalidRequest, msg, model, s.reserve(1).id("req_emu_")).write(w)
	}
	fields, err := objectFields(body)
	if err != nil {
		invalid("There was an error parsing the body: " + err.Error())
		return
	}
	stream := method == "streamRawPredict"
	switch {
	case fields["model"] != nil:
		invalid("model: Extra inputs are not permitted")
		return
	case string(fields["anthropic_version"]) != `"`+VertexAnthropicVersion+`"`:
		invalid(fmt.Sprintf("anthropic_version: Input should be %q", VertexAnthropicVersion))
		return
	case stream != (string(fields["stream"]) == "true"):
		invalid(fmt.Sprintf("stream: must be %v for %s", stream, method))
		return
	}
	// Vertex names versions with @date; the messages report the
	// Anthropic name (claude-3-7-sonnet@20250219 → claude-3-7-sonnet-20250219).
	vendorBody := setFields(body, map[string]any{"model": strings.Replace(model, "@", "-", 1), "stream": stream}, "anthropic_version")
	h := r.Header.Clone()
	h.Del("Authorization")
	h.Set("X-Api-Key", token)
	h.Set("Anthropic-Version", "2023-06-01")
	rec := vendor(r, "/v1/messages", h, vendorBody, s.serveAnthropic)
	switch {
	case rec.Code != http.StatusOK:
	case stream:
		rec.Body = bytes.NewBuffer(joinSSE(vertexClaude.events(splitSSE(rec.Body.Bytes())), "\n"))
	default:
		rec.Body = bytes.NewBuffer(vertexClaude.body(rec.Body.Bytes()))
	}
	s.vertexStatus(w, rec, model)
}

// vertexStatus writes a Claude answer, turning the failures Vertex AI
// answers itself (unknown model, quota) into google.rpc.Status bodies.
func (s *Server) vertexStatus(w http.ResponseWriter, rec *httptest.ResponseRecorder, model string) {
	switch rec.Code {
	case http.StatusNotFound, http.StatusTooManyRequests:
		e := wire.ErrorFor(wire.VertexAnthropic, wire.KindForStatus(rec.Code), model)
		for k, vs := range e.Header(wire.VertexAnthropic) {
			w.Header()[k] = vs
		}
		rec.Header().Del("Request-Id") // Anthropic's; Vertex AI sends none
		keepHeaders(w.Header(), rec.Header())
		w.WriteHeader(e.Status)
		w.Write(e.Body(wire.VertexAnthropic)) //nolint:errcheck
	default:
		rec.Header().Del("Request-Id")
		pass(w, rec, rec.Body.Bytes())
	}
}
