package wire

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// The cloud platforms' protocols: the vendors' wire formats on other
// paths, with the platform's own failures.
const (
	// Vertex is Gemini on Vertex AI: Gemini's bodies and events; a
	// missing or refused OAuth token is 401 UNAUTHENTICATED.
	Vertex API = "vertex"
	// VertexAnthropic is Claude on Vertex AI (rawPredict): the
	// platform's failures (credentials, quota, unknown models) are
	// google.rpc.Status bodies, the model's own (invalid requests,
	// overloads, server errors) the Messages API's, mid-stream too.
	VertexAnthropic API = "vertex-anthropic"
	// AzureChat and AzureResponses are OpenAI's dialects on Azure OpenAI:
	// OpenAI's bodies with Azure's codes ("401", "429",
	// DeploymentNotFound).
	AzureChat      API = "azure-chat"
	AzureResponses API = "azure-responses"
	// Bedrock is Claude through Bedrock's InvokeModel: the exception named
	// in x-amzn-ErrorType and {"message": ...}; mid-stream, an
	// event-stream exception frame.
	Bedrock API = "bedrock-anthropic"
	// BedrockConverse is Bedrock's Converse API, a wire format of its
	// own: Bedrock's failures as Bedrock's InvokeModel has them; each
	// stream event a frame of its own (:event-type contentBlockDelta,
	// ...) whose payload is the event's JSON.
	BedrockConverse API = "bedrock-converse"
)

// IsBedrock reports whether api is one of Bedrock's, whose failures are
// exceptions and whose streams are AWS event streams.
func IsBedrock(api API) bool { return api == Bedrock || api == BedrockConverse }

// IsCloud reports whether api is a cloud platform's.
func IsCloud(api API) bool {
	switch api {
	case Vertex, VertexAnthropic, AzureChat, AzureResponses, Bedrock, BedrockConverse:
		return true
	}
	return false
}

// Base returns the vendor protocol whose bodies and events api carries:
// Gemini for Vertex, Anthropic for Vertex's Claude and Bedrock's chunks,
// OpenAI's dialects for Azure; other APIs are their own.
func Base(api API) API {
	switch api {
	case Vertex:
		return Gemini
	case VertexAnthropic, Bedrock:
		return Anthropic
	case AzureChat:
		return OpenAIChat
	case AzureResponses:
		return OpenAIResponses
	}
	return api
}

// cloudError is ErrorFor for the cloud platforms.
func cloudError(api API, kind Kind, model string) Error {
	switch api {
	case Vertex:
		e := geminiError(kind, model)
		switch kind {
		case Auth, MissingKey:
			e = vertexUnauthenticated()
		case ModelNotFound:
			e.Message = fmt.Sprintf("Publisher Model `projects/metis-emulator/locations/global/publishers/google/models/%s` was not found or your project does not have access to it. Please ensure you are using a valid model version. For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions", model)
		case RateLimit:
			e.Message = "Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details."
		}
		return e
	case VertexAnthropic:
		switch kind {
		case Auth, MissingKey:
			return vertexUnauthenticated()
		case RateLimit:
			return Error{Status: 429, Type: "RESOURCE_EXHAUSTED", Message: fmt.Sprintf("Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-%s. Please submit a quota increase request. https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.", model)}
		case ModelNotFound:
			return Error{Status: 404, Type: "NOT_FOUND", Message: fmt.Sprintf("Publisher Model `projects/metis-emulator/locations/global/publishers/anthropic/models/%s` not found.", model)}
		}
		return anthropicError(kind, model)
	case AzureChat, AzureResponses:
		e := openAIError(Base(api), kind, model)
		switch kind {
		case Auth, MissingKey:
			e = Error{Status: 401, Code: "401", Message: "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}
		case RateLimit:
			e = Error{Status: 429, Code: "429", Message: "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}
		case ModelNotFound:
			e = Error{Status: 404, Code: "DeploymentNotFound", Message: "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}
		}
		return e
	}
	return bedrockError(kind)
}

func vertexUnauthenticated() Error {
	return Error{Status: 401, Type: "UNAUTHENTICATED", Message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."}
}

// bedrockError: Type is the exception's name.
func bedrockError(kind Kind) Error {
	switch kind {
	case Auth:
		return Error{Status: 403, Type: "UnrecognizedClientException", Message: "The security token included in the request is invalid."}
	case MissingKey:
		return Error{Status: 403, Type: "MissingAuthenticationTokenException", Message: "Missing Authentication Token"}
	case RateLimit:
		return Error{Status: 429, Type: "ThrottlingException", Message: "Too many requests, please wait before trying again."}
	case Overloaded:
		return Error{Status: 503, Type: "ServiceUnavailableException", Message: "Bedrock is unable to process your request."}
	case Server:
		return Error{Status: 500, Type: "InternalServerException", Message: "The server encountered an internal error while processing the request."}
	case ContextOverflow:
		return Error{Status: 400, Type: "ValidationException", Message: "Input is too long for requested model."}
	case ModelNotFound:
		return Error{Status: 400, Type: "ValidationException", Message: "The provided model identifier is invalid."}
	}
	return Error{Status: 400, Type: "ValidationException", Message: "Malformed input request, please reformat your input and try again."}
}

// bedrockExceptionFor is the exception Bedrock answers status with; none
// for a 2xx, which names no exception (a 200 whose body is not a
// response is the body's problem, not an exception's).
func bedrockExceptionFor(status int) string {
	switch {
	case status >= 200 && status < 300:
		return ""
	case status == 401 || status == 403:
		return "AccessDeniedException"
	case status == 404:
		return "ResourceNotFoundException"
	case status == 408:
		return "ModelTimeoutException"
	case status == 424:
		return "ModelErrorException"
	case status == 429:
		return "ThrottlingException"
	case status == 503 || status == 529:
		return "ServiceUnavailableException"
	case status >= 500:
		return "InternalServerException"
	}
	return "ValidationException"
}

// rpcShaped reports whether e's Type is a google.rpc status name (a
// Vertex platform failure) rather than a Messages API error type.
func (e Error) rpcShaped() bool { return e.Type != "" && e.Type == strings.ToUpper(e.Type) }

// cloudWithStatus is WithStatus for the cloud platforms.
func (e Error) cloudWithStatus(api API, status int) Error {
	e.Status = status
	switch {
	case api == Vertex || api == VertexAnthropic && e.rpcShaped():
		e.Type = GeminiStatus(status)
	case IsBedrock(api):
		e.Type = bedrockExceptionFor(status)
	}
	return e
}

// cloudHeader is Header for the cloud platforms.
func (e Error) cloudHeader(api API) http.Header {
	switch api {
	case Bedrock, BedrockConverse:
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		if e.Type != "" {
			h.Set("X-Amzn-ErrorType", e.Type+":http://internal.amazon.com/coral/com.amazon.bedrock/")
		}
		if e.RequestID != "" {
			h.Set("X-Amzn-RequestId", e.RequestID)
		}
		return h
	case VertexAnthropic:
		if e.rpcShaped() {
			return e.Header(Gemini)
		}
	}
	return e.Header(Base(api))
}

// cloudBody is Body for the cloud platforms.
func (e Error) cloudBody(api API) []byte {
	switch {
	case IsBedrock(api):
		return JSON(struct {
			Message string `json:"message"`
		}{e.Message}, "")
	case api == VertexAnthropic && e.rpcShaped():
		return e.Body(Gemini)
	}
	return e.Body(Base(api))
}

// cloudEvent is Event for the cloud platforms: Bedrock's is an
// event-stream exception frame (an Overloaded model is
// modelStreamErrorException carrying the model's 529), the others their
// vendor's event.
func (e Error) cloudEvent(api API, st *Stream) []byte {
	if !IsBedrock(api) {
		return e.Event(Base(api), st)
	}
	typ, payload := e.Type, e.cloudBody(api)
	if e.Status == 529 || typ == "overloaded_error" || typ == "ServiceUnavailableException" {
		typ = "ModelStreamErrorException"
		payload = JSON(struct {
			Message            string `json:"message"`
			OriginalStatusCode int    `json:"originalStatusCode"`
			OriginalMessage    string `json:"originalMessage"`
		}{"Received error from the model: " + e.Message, 529, "Overloaded"}, "")
	}
	return BedrockException(lowerFirst(typ), payload)
}

// BedrockException is an exception frame of Bedrock's event stream: typ
// is the :exception-type (throttlingException, ...), payload its JSON.
func BedrockException(typ string, payload []byte) []byte {
	return BedrockFrame(eventstream.Headers{
		{Name: ":exception-type", Value: eventstream.StringValue(typ)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		{Name: ":message-type", Value: eventstream.StringValue("exception")},
	}, payload)
}

// BedrockChunk is a chunk frame of Bedrock's event stream carrying
// payload as it is (a well-formed one is {"bytes": base64, "p": ...}).
func BedrockChunk(payload []byte) []byte { return BedrockEvent("chunk", payload) }

// BedrockEvent is an event frame of Bedrock's event stream: typ is the
// :event-type (chunk on InvokeModel; messageStart, contentBlockDelta,
// ... on Converse), payload is sent as it is.
func BedrockEvent(typ string, payload []byte) []byte {
	return BedrockFrame(eventstream.Headers{
		{Name: ":event-type", Value: eventstream.StringValue(typ)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		{Name: ":message-type", Value: eventstream.StringValue("event")},
	}, payload)
}

// BedrockFrame encodes one event-stream message with the AWS SDK's
// encoder.
func BedrockFrame(headers eventstream.Headers, payload []byte) []byte {
	var b bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: headers, Payload: payload}); err != nil {
		panic("wire: encoding an event-stream frame: " + err.Error()) // a bytes.Buffer does not fail
	}
	return b.Bytes()
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
