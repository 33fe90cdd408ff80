package bedrock

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Error mapping. Bedrock names the exception in the x-amzn-ErrorType
// header ("ThrottlingException:http://internal.amazon.com/coral/…", the
// part before ":" counts; a body's "__type" too) and gives
// {"message": M} in the body; mid-stream, an exception frame names it in
// ":exception-type" (lower camel case: throttlingException) with the
// same payload. The name decides the class; the status decides only for
// names the table does not know.
//
//	exception                        status  class             code
//	ThrottlingException              429     rate_limit        -
//	ServiceQuotaExceededException    400     rate_limit        insufficient_quota (not retried)
//	AccessDeniedException,           403     auth              -
//	  UnrecognizedClientException,
//	  ExpiredTokenException,
//	  InvalidSignatureException,
//	  IncompleteSignatureException,
//	  MissingAuthenticationTokenException
//	ResourceNotFoundException        404     invalid_request   model_not_found
//	ValidationException              400     invalid_request   model_not_found for an invalid model
//	                                                           identifier; context_overflow for an
//	                                                           input that is too long
//	ModelNotReadyException           429     server_error      model_not_loaded (retried)
//	ModelTimeoutException            408     server_error      timeout
//	ServiceUnavailableException      503     server_error      overloaded
//	InternalServerException          500     server_error      -
//	ModelErrorException,             424     the class of originalStatusCode when the body has one
//	  ModelStreamErrorException              (529 is rate_limit/overloaded, as on Anthropic's API),
//	                                         else server_error
//
// Message is the body's message (originalMessage appended when present);
// ProviderRequestID is the x-amzn-RequestId header.

// exception is Bedrock's error body (encoding/json matches "message"
// and "Message" alike).
type exception struct {
	Type               string `json:"__type"`
	Message            string `json:"message"`
	OriginalStatusCode int    `json:"originalStatusCode"`
	OriginalMessage    string `json:"originalMessage"`
}

// Classify maps a non-2xx InvokeModel response to an AdapterError.
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return Classify(status, h, body)
}

// Classify maps a non-2xx answer of any Bedrock runtime API (InvokeModel,
// Converse) to an AdapterError with the table above: the exception named
// by x-amzn-ErrorType (or the body's __type), else the status.
func Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	var e exception
	_ = json.Unmarshal(body, &e) // a body that is not JSON leaves the status to decide
	typ := h.Get("X-Amzn-ErrorType")
	if typ == "" {
		typ = e.Type
	}
	ae := classifyException(status, typ, &e)
	if ae.Message == "" {
		ae.Message = strings.TrimSpace(string(body))
	}
	if ae.Message == "" {
		ae.Message = http.StatusText(status)
	}
	ae.ProviderRequestID = h.Get("X-Amzn-RequestId")
	return ae
}

// ExceptionError classifies an exception frame of a stream, named typ
// (":exception-type"), whose payload is {"message": ...}.
func ExceptionError(provider, typ string, payload []byte) *canonical.AdapterError {
	var e exception
	if err := json.Unmarshal(payload, &e); err != nil {
		e.Message = strings.TrimSpace(string(payload))
	}
	ae := classifyException(0, typ, &e)
	if ae.Message == "" {
		// A frame with neither a type nor a message: say what it held.
		ae.Message = "exception frame without a type or message: " + strings.TrimSpace(string(payload))
	}
	ae.Provider = provider
	return ae
}

// classifyException applies the table to exception typ (any case, any
// ":…" suffix) received with status (0 mid-stream).
func classifyException(status int, typ string, e *exception) *canonical.AdapterError {
	name, _, _ := strings.Cut(typ, ":")
	name = strings.ToLower(strings.TrimSpace(name))
	class, code := driver.ClassifyStatus(status), ""
	if status == 0 {
		class = canonical.ErrServer
	}
	msg := e.Message
	lower := strings.ToLower(msg)
	switch name {
	case "throttlingexception":
		class = canonical.ErrRateLimit
	case "servicequotaexceededexception":
		class, code = canonical.ErrRateLimit, canonical.CodeQuotaExceeded
	case "accessdeniedexception", "unrecognizedclientexception", "expiredtokenexception",
		"invalidsignatureexception", "incompletesignatureexception", "missingauthenticationtokenexception":
		class = canonical.ErrAuth
	case "resourcenotfoundexception":
		class, code = canonical.ErrInvalidRequest, canonical.CodeModelNotFound
	case "validationexception", "":
		// Without a name (a recorder that dropped the header), a 400
		// is read as the ValidationException it almost always is.
		if name == "" && status != http.StatusBadRequest {
			break
		}
		class = canonical.ErrInvalidRequest
		switch {
		case strings.Contains(lower, "model identifier is invalid"):
			code = canonical.CodeModelNotFound
		case strings.Contains(lower, "too long") || strings.Contains(lower, "context window") || strings.Contains(lower, "too many total text bytes"):
			class = canonical.ErrContextOverflow
		}
	case "modelnotreadyexception":
		class, code = canonical.ErrServer, canonical.CodeModelNotLoaded
	case "modeltimeoutexception":
		class, code = canonical.ErrServer, canonical.CodeTimeout
	case "serviceunavailableexception":
		class, code = canonical.ErrServer, canonical.CodeOverloaded
	case "internalserverexception":
		class = canonical.ErrServer
	case "modelerrorexception", "modelstreamerrorexception":
		class = canonical.ErrServer
		switch s := e.OriginalStatusCode; {
		case s == 529:
			class, code = canonical.ErrRateLimit, canonical.CodeOverloaded
		case s >= 400:
			class = driver.ClassifyStatus(s)
		}
		if e.OriginalMessage != "" {
			msg += ": " + e.OriginalMessage
		}
	}
	if msg == "" && name != "" {
		msg = name
	}
	ae := driver.HTTPError(class, code, status, msg)
	if code == canonical.CodeQuotaExceeded {
		ae.Retryable = false
	}
	if code == canonical.CodeModelNotLoaded {
		ae.Retryable = true
	}
	return ae
}
