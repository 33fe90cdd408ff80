package bedrockconverse

import (
	"net/http"

	"github.com/metis-llm/metis/adapters/bedrock"
	"github.com/metis-llm/metis/canonical"
)

// Classify maps a non-2xx Converse answer to an AdapterError with
// adapters/bedrock's exception table (x-amzn-ErrorType, then the
// status; the {"message"} body is the message). Converse and InvokeModel
// fail alike; exception frames mid-stream go through
// bedrock.ExceptionError (bedrock.DecodeEvents).
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return bedrock.Classify(status, h, body)
}
