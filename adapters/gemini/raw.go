package gemini

import (
	"encoding/json"
	"strconv"

	"github.com/metis-llm/metis/adapters/driver"
)

// providerRaw is this adapter's entry in MessageMetadata.ProviderRaw
// (Response.ProviderRaw): the thoughtSignatures Gemini put on functionCall
// and text parts, which have no canonical home (a thought part's signature
// is its ThinkingBlock's).
//
//	{"signatures": {"1": "<sig>"}, "trailing_signature": "<sig>"}
//
// Signatures are keyed by the index of the canonical content block made
// from the signed part. Trailing is a signature Gemini sent on an empty
// text part that followed a block of another kind (or no block at all);
// it goes back as an empty text part at the end of the model content.
// SafetyRatings are the prompt's or candidate's last ratings when the
// message ended as content_filter, enums by name whichever form Gemini
// sent; they are never sent back.
// (Gemini's modelVersion, which older versions kept here as
// "model_version", is Response.ServedModel.)
type providerRaw struct {
	Signatures    map[string]string `json:"signatures,omitempty"`
	Trailing      string            `json:"trailing_signature,omitempty"`
	SafetyRatings []safetyRating    `json:"safety_ratings,omitempty"`
}

// signature returns the signature of content block i, or "".
func (r providerRaw) signature(i int) string {
	if r.Signatures == nil {
		return ""
	}
	return r.Signatures[strconv.Itoa(i)]
}

// empty reports whether r holds nothing worth storing.
func (r providerRaw) empty() bool {
	return len(r.Signatures) == 0 && r.Trailing == "" && len(r.SafetyRatings) == 0
}

// parseRaw decodes a ProviderRaw entry. A malformed entry (written by
// something else) is treated as empty: signatures are an optimisation for
// Gemini 3's reasoning continuity, and a request without them is still
// well-formed for older models.
func parseRaw(data json.RawMessage) providerRaw { return driver.ParseRaw[providerRaw](data) }
