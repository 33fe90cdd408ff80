package ollama

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// classify maps an Ollama failure to an AdapterError. Ollama answers
// errors as {"error": "message"} with an HTTP status; a proxy in front of
// it may send OpenAI's {"error": {"message": ...}}, which is read the
// same way. Status 0 is an error a 2xx body or a stream line states. The
// status decides the class (driver.ClassifyStatus), refined by the
// message:
//
//	condition                                      class             Code              retried
//	404, or a message "model ... not found"        invalid_request   model_not_found   no
//	  (status 0 too)
//	a message saying the model is loading, or      server_error      model_not_loaded  yes
//	  503 "server busy" (OLLAMA_MAX_QUEUE full)    server_error      overloaded        yes
//	a message about the context length             context_overflow  -                 no
//	400 and other 4xx                              invalid_request   -                 no
//	401, 403                                       auth              -                 no
//	429                                            rate_limit        -                 yes
//	500 and other 5xx                              server_error      -                 yes
//	status 0, any other message                    server_error      -                 yes
func classify(status int, _ http.Header, body []byte) *canonical.AdapterError {
	msg, ok := errorMessage(body)
	if !ok {
		ae := driver.DefaultClassify(status, nil, body)
		if status == 0 {
			ae.Class, ae.Retryable = canonical.ErrServer, true
		}
		return ae
	}
	class := driver.ClassifyStatus(status)
	if status == 0 {
		class = canonical.ErrServer
	}
	code := ""
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusNotFound || strings.Contains(lower, "not found") && strings.Contains(lower, "model"):
		class, code = canonical.ErrInvalidRequest, canonical.CodeModelNotFound
	case strings.Contains(lower, "loading model") || strings.Contains(lower, "model is loading"):
		class, code = canonical.ErrServer, canonical.CodeModelNotLoaded
	case status == http.StatusServiceUnavailable && strings.Contains(lower, "busy"):
		class, code = canonical.ErrServer, canonical.CodeOverloaded
	case strings.Contains(lower, "context length") || strings.Contains(lower, "context window") || strings.Contains(lower, "too long"):
		class = canonical.ErrContextOverflow
	}
	return driver.HTTPError(class, code, status, msg)
}

// errorMessage reads the message of an error body: {"error": "..."} or
// {"error": {"message": "..."}}.
func errorMessage(body []byte) (string, bool) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &e) != nil || !hasError(e.Error) {
		return "", false
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return s, true
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
		return obj.Message, true
	}
	return string(e.Error), true
}
