package check

import (
	"bytes"
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// unframed returns the events a response body carries: an AWS event
// stream (Bedrock's binary framing, each chunk frame a base64 event) as
// its chunks' event JSON one after another, where the fragments a
// provider streamed appear as it sent them; any other body as it is.
func unframed(body []byte) []byte {
	// A frame starts with its big-endian length, under 17 MiB: a first
	// byte of 0 or 1. JSON and server-sent events start with text.
	if len(body) < 16 || body[0] > 1 {
		return body
	}
	r := bytes.NewReader(body)
	dec := eventstream.NewDecoder()
	var out []byte
	for r.Len() > 0 {
		m, err := dec.Decode(r, nil)
		if err != nil {
			return body
		}
		var chunk struct {
			Bytes []byte `json:"bytes"`
		}
		if json.Unmarshal(m.Payload, &chunk) == nil && len(chunk.Bytes) > 0 {
			out = append(append(out, chunk.Bytes...), '\n')
		} else {
			out = append(append(out, m.Payload...), '\n')
		}
	}
	return out
}
