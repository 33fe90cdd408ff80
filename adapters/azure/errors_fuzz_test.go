package azure

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/wire"
)

// FuzzClassify feeds any status and body to Azure's error table: the
// result is always a classified error with the status kept
// (adaptertest.CheckClassified). Azure's own codes decide whatever else
// the body says: a DeploymentNotFound or content_filter error code with
// any message, type and status is invalid_request with model_not_found
// or content_filter, not retried. And each kind of failure rendered as
// Azure renders it (internal/wire, both routes) with a fuzzed message
// reads back with that message.
func FuzzClassify(f *testing.F) {
	f.Add(uint16(404), []byte(`{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`), "content_filter", "maximum context length", uint8(6))
	f.Add(uint16(400), []byte(`{"error":{"code":"content_filter","message":"filtered","param":"prompt","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}}`), "DeploymentNotFound", "rate_limit_exceeded", uint8(0))
	f.Add(uint16(429), []byte(`{"error":{"code":"429","message":"Please retry after 1 second."}}`), "429", "try again in 3s", uint8(2))
	f.Add(uint16(401), []byte(`{"error":{"code":401,"message":"x"}}`), "401", "", uint8(1))
	f.Add(uint16(500), []byte(`{"error":{"code":null}}`), "", "\x00", uint8(4))
	classify := (&provider{}).Classify
	f.Fuzz(func(t *testing.T, code uint16, body []byte, azureCode, message string, kind uint8) {
		status := adaptertest.FuzzStatus(code)
		adaptertest.CheckClassified(t, classify, status, http.Header{}, body)
		coded, _ := json.Marshal(map[string]any{"error": map[string]any{"code": azureCode, "message": message, "type": message}})
		got := classify(status, http.Header{}, coded)
		want := map[string]string{"DeploymentNotFound": canonical.CodeModelNotFound, "content_filter": canonical.CodeContentFilter}[azureCode]
		if want != "" && (got.Class != canonical.ErrInvalidRequest || got.Code != want || got.Retryable) {
			t.Fatalf("%d %s: %s/%s retryable %v, want invalid_request/%s", status, coded, got.Class, got.Code, got.Retryable, want)
		}
		message, ok := adaptertest.FuzzMessage(message)
		if !ok {
			return
		}
		for _, api := range []wire.API{wire.AzureChat, wire.AzureResponses} {
			e := wire.ErrorFor(api, wire.Kinds[int(kind)%len(wire.Kinds)], "gpt-5-mini")
			e.Message = message
			adaptertest.CheckReadsBack(t, classify, e.Status, e.Header(api), e.Body(api), message)
		}
	})
}
