package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Gemini's enums are proto enums. The REST API writes their names, but
// bodies from older API versions, alt=json with enum-encoding=int and
// protobuf JSON dumps carry their numbers; both decode to the name, so a
// response means the same whichever form it came in. The numbers are
// google.ai.generativelanguage.v1beta's. A number the table does not know
// decodes to PREFIX_<n>, which no mapping recognises: an unknown finish
// reason stays an unknown_finish_reason error, never a wrong known one.

// finishReasons is Candidate.FinishReason by number.
var finishReasons = []string{
	"FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION",
	"OTHER", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
	"MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL",
}

// blockReasons is PromptFeedback.BlockReason by number.
var blockReasons = []string{
	"BLOCK_REASON_UNSPECIFIED", "SAFETY", "OTHER", "BLOCKLIST",
	"PROHIBITED_CONTENT", "IMAGE_SAFETY",
}

// harmCategories is HarmCategory by number.
var harmCategories = []string{
	"HARM_CATEGORY_UNSPECIFIED", "HARM_CATEGORY_DEROGATORY", "HARM_CATEGORY_TOXICITY",
	"HARM_CATEGORY_VIOLENCE", "HARM_CATEGORY_SEXUAL", "HARM_CATEGORY_MEDICAL",
	"HARM_CATEGORY_DANGEROUS", "HARM_CATEGORY_HARASSMENT", "HARM_CATEGORY_HATE_SPEECH",
	"HARM_CATEGORY_SEXUALLY_EXPLICIT", "HARM_CATEGORY_DANGEROUS_CONTENT",
	"HARM_CATEGORY_CIVIC_INTEGRITY",
}

// harmProbabilities is SafetyRating.HarmProbability by number.
var harmProbabilities = []string{
	"HARM_PROBABILITY_UNSPECIFIED", "NEGLIGIBLE", "LOW", "MEDIUM", "HIGH",
}

// decodeEnum decodes a proto enum given as its name or its number (a
// JSON number, or a string of digits, as some encoders write int64s).
// null leaves the value empty; anything else is an error.
func decodeEnum(b []byte, names []string, prefix string) (string, error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return "", nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", err
		}
		if n, err := strconv.Atoi(s); err == nil {
			return enumName(n, names, prefix), nil
		}
		return s, nil
	case b[0] == '-' || b[0] >= '0' && b[0] <= '9':
		n, err := strconv.Atoi(string(b))
		if err != nil {
			return "", fmt.Errorf("enum %s: %s is not an integer", prefix, b)
		}
		return enumName(n, names, prefix), nil
	}
	return "", fmt.Errorf("enum %s: %s is neither a name nor a number", prefix, b)
}

func enumName(n int, names []string, prefix string) string {
	if n >= 0 && n < len(names) {
		return names[n]
	}
	return prefix + "_" + strconv.Itoa(n)
}

// finishReason, blockReason, harmCategory and harmProbability are the
// enums the decoder reads, each decoding either form to the name.
type (
	finishReason    string
	blockReason     string
	harmCategory    string
	harmProbability string
)

func (e *finishReason) UnmarshalJSON(b []byte) error {
	s, err := decodeEnum(b, finishReasons, "FINISH_REASON")
	*e = finishReason(s)
	return err
}

func (e *blockReason) UnmarshalJSON(b []byte) error {
	s, err := decodeEnum(b, blockReasons, "BLOCK_REASON")
	*e = blockReason(s)
	return err
}

func (e *harmCategory) UnmarshalJSON(b []byte) error {
	s, err := decodeEnum(b, harmCategories, "HARM_CATEGORY")
	*e = harmCategory(s)
	return err
}

func (e *harmProbability) UnmarshalJSON(b []byte) error {
	s, err := decodeEnum(b, harmProbabilities, "HARM_PROBABILITY")
	*e = harmProbability(s)
	return err
}
