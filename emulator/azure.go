package emulator

import (
	"net/http"
	"strings"

	"github.com/metis-llm/metis/internal/wire"
)

// serveAzure answers Azure OpenAI's routes. m is the route's match: the
// v1 operation, or the deployment and its operation, or the dated
// Responses route. Dated routes need ?api-version; the key comes in the
// api-key header (or as an Entra ID bearer token). Chat answers get
// Azure's extras: a first chunk with no choices, an empty id and model
// and prompt_filter_results, and content_filter_results on every choice.
func (s *Server) serveAzure(w http.ResponseWriter, r *http.Request, body []byte, m []string) {
	op, deployment := m[1], m[2]
	dated := m[1] == ""
	if dated {
		op = m[3] + m[4]
		if r.URL.Query().Get("api-version") == "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"code":"404","message":"Resource not found"}}`)) //nolint:errcheck
			return
		}
	}
	api := wire.AzureChat
	if op == "responses" {
		api = wire.AzureResponses
	}
	key := r.Header.Get("Api-Key")
	if key == "" {
		key = bearer(r)
	}
	if !s.checkKey(w, api, key, deployment) {
		return
	}
	// The v1 API and the dated Responses route name the deployment in the
	// body's model: without it there is nothing to route to.
	if op != "" && deployment == "" {
		if f, err := objectFields(body); err == nil && (f["model"] == nil || string(f["model"]) == `""`) {
			errorFor(API(api), ErrorInvalidRequest, "Missing required parameter: 'model' (the deployment name).", "", s.reserve(1).id("req_emu_")).write(w)
			return
		}
	}
	if deployment != "" {
		if _, err := objectFields(body); err == nil {
			body = setFields(body, map[string]any{"model": deployment})
		}
	}
	h := r.Header.Clone()
	h.Del("Api-Key")
	h.Set("Authorization", "Bearer "+key)
	serve := s.serveChat
	if api == wire.AzureResponses {
		serve = s.serveResponses
	}
	rec := vendor(r, "/v1/"+op, h, body, serve)
	if id := rec.Header().Get("X-Request-Id"); id != "" {
		rec.Header().Del("X-Request-Id")
		rec.Header().Set("Apim-Request-Id", id)
	}
	switch {
	case rec.Code == http.StatusNotFound || rec.Code == http.StatusTooManyRequests:
		e := wire.ErrorFor(api, wire.KindForStatus(rec.Code), deployment)
		for k, vs := range e.Header(api) {
			w.Header()[k] = vs
		}
		keepHeaders(w.Header(), rec.Header())
		w.WriteHeader(e.Status)
		w.Write(e.Body(api)) //nolint:errcheck
	case rec.Code != http.StatusOK:
		pass(w, rec, rec.Body.Bytes())
	case api == wire.AzureResponses && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream"):
		events := splitSSE(rec.Body.Bytes())
		for i, ev := range events {
			events[i].data = jsonEdit(ev.data, func(v map[string]any) {
				if resp, ok := v["response"].(map[string]any); ok {
					responseContentFilters(resp)
				}
			})
		}
		pass(w, rec, joinSSE(events, "\n"))
	case api == wire.AzureResponses:
		pass(w, rec, jsonEdit(rec.Body.Bytes(), responseContentFilters))
	case strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream"):
		events := splitSSE(rec.Body.Bytes())
		out := []sseEvent{{data: marshal(map[string]any{
			"choices": []any{}, "created": 0, "id": "", "model": "", "object": "",
			"prompt_filter_results": promptFilterResults(),
		})}}
		for _, ev := range events {
			out = append(out, sseEvent{ev.name, jsonEdit(ev.data, choiceFilterResults)})
		}
		pass(w, rec, joinSSE(out, "\n"))
	default:
		pass(w, rec, jsonEdit(rec.Body.Bytes(), func(v map[string]any) {
			choiceFilterResults(v)
			v["prompt_filter_results"] = promptFilterResults()
		}))
	}
}

// keepHeaders copies into dst every header of a vendor's answer whose
// body the platform replaces (scripted reply headers such as Retry-After,
// the request id), all but the ones that describe the replaced body.
func keepHeaders(dst, vendor http.Header) {
	for k, vs := range vendor {
		switch k {
		case "Content-Type", "Content-Length", "Content-Encoding":
			continue
		}
		dst[k] = append([]string(nil), vs...)
	}
}

// safeResults is a content filter's verdict on harmless text.
func safeResults() map[string]any {
	safe := func() map[string]any { return map[string]any{"filtered": false, "severity": "safe"} }
	return map[string]any{"hate": safe(), "self_harm": safe(), "sexual": safe(), "violence": safe()}
}

// promptResults is the filters' verdict on a harmless prompt: the
// harm categories and the jailbreak check.
func promptResults() map[string]any {
	r := safeResults()
	r["jailbreak"] = map[string]any{"detected": false, "filtered": false}
	return r
}

func promptFilterResults() []any {
	return []any{map[string]any{"prompt_index": 0, "content_filter_results": promptResults()}}
}

// responseContentFilters adds Azure's content_filters to a Responses
// object: null while it is in progress, then a prompt and a completion
// entry (the completion's with the protected-material checks).
func responseContentFilters(resp map[string]any) {
	if resp["status"] == "in_progress" || resp["status"] == "queued" {
		resp["content_filters"] = nil
		return
	}
	completion := safeResults()
	for _, k := range []string{"protected_material_code", "protected_material_text"} {
		completion[k] = map[string]any{"detected": false, "filtered": false}
	}
	entry := func(source string, results map[string]any) map[string]any {
		return map[string]any{"blocked": false, "source_type": source, "content_filter_raw": []any{}, "content_filter_results": results,
			"content_filter_offsets": map[string]any{"start_offset": 0, "end_offset": 0, "check_offset": 0}}
	}
	resp["content_filters"] = []any{entry("prompt", promptResults()), entry("completion", completion)}
}

// choiceFilterResults adds content_filter_results to every choice of a
// chunk or completion: the verdicts where the choice carries content,
// {} where it carries none (the role chunk, the finish chunk).
func choiceFilterResults(v map[string]any) {
	choices, _ := v["choices"].([]any)
	for _, c := range choices {
		ch, ok := c.(map[string]any)
		if !ok {
			continue
		}
		results := map[string]any{}
		for _, k := range []string{"delta", "message"} {
			if part, ok := ch[k].(map[string]any); ok {
				if text, _ := part["content"].(string); text != "" {
					results = safeResults()
				}
			}
		}
		if ch["finish_reason"] == "content_filter" {
			results = safeResults()
			results["violence"] = map[string]any{"filtered": true, "severity": "high"}
		}
		ch["content_filter_results"] = results
	}
}
