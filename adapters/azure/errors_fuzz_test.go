package azure

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/wire"
)

// FuzzClassify feeds any status and body to Azure's error table: the
// result is always a classified error (adaptertest.Unclassified) with
// the status kept. Azure's own codes decide whatever else the body says:
// a DeploymentNotFound or content_filter error code with any message,
// type and status is invalid_request with model_not_found or
// content_filter. And each kind of failure rendered as Azure renders it
// (internal/wire, both routes) with a fuzzed message reads back with that
// message and status.
func FuzzClassify(f *testing.F) {
	f.Add(uint16(404), []byte(`{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`), "content_filter", "maximum context length", uint8(6))
	f.Add(uint16(400), []byte(`{"error":{"code":"content_filter","message":"filtered","param":"prompt","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}}`), "DeploymentNotFound", "rate_limit_exceeded", uint8(0))
	f.Add(uint16(429), []byte(`{"error":{"code":"429","message":"Please retry after 1 second."}}`), "429", "try again in 3s", uint8(2))
	f.Add(uint16(401), []byte(`{"error":{"code":401,"message":"x"}}`), "401", "", uint8(1))
	f.Add(uint16(500), []byte(`{"error":{"code":null}}`), "", "\x00", uint8(4))
	p := &provider{}
	f.Fuzz(func(t *testing.T, code uint16, body []byte, azureCode, message string, kind uint8) {
		status := int(code) % 600
		if status < 100 {
			status += 400
		}
		ae := p.Classify(status, http.Header{}, body)
		if why := adaptertest.Unclassified(ae, driver.MaxRetryAfter); why != "" {
			t.Fatalf("%d %q: %s: %+v", status, body, why, ae)
		}
		if ae.Status != status {
			t.Fatalf("%d %q: status %d", status, body, ae.Status)
		}

		coded, _ := json.Marshal(map[string]any{"error": map[string]any{"code": azureCode, "message": message, "type": message}})
		got := p.Classify(status, http.Header{}, coded)
		want := map[string]string{"DeploymentNotFound": canonical.CodeModelNotFound, "content_filter": canonical.CodeContentFilter}[azureCode]
		if want != "" && (got.Class != canonical.ErrInvalidRequest || got.Code != want || got.Retryable) {
			t.Fatalf("%d %s: %s/%s retryable %v, want invalid_request/%s", status, coded, got.Class, got.Code, got.Retryable, want)
		}

		message = strings.TrimSpace(message)
		if message == "" || !utf8.ValidString(message) {
			return
		}
		k := wire.Kinds[int(kind)%len(wire.Kinds)]
		for _, api := range []wire.API{wire.AzureChat, wire.AzureResponses} {
			e := wire.ErrorFor(api, k, "gpt-5-mini")
			e.Message = message
			got := p.Classify(e.Status, e.Header(api), e.Body(api))
			if why := adaptertest.Unclassified(got, driver.MaxRetryAfter); why != "" {
				t.Fatalf("%s %s with message %q: %s", api, k, message, why)
			}
			if !strings.Contains(got.Message, message) || got.Status != e.Status {
				t.Fatalf("%s %s with message %q: read back as %q, status %d (want %d)", api, k, message, got.Message, got.Status, e.Status)
			}
		}
	})
}
