package wire

import "fmt"

// Ollama is Ollama's native API (/api/chat): an error is {"error":
// "message"} with an HTTP status, mid-stream an NDJSON line of the same
// shape. Ollama checks no key; an auth failure is what a proxy in front
// of it answers, with the same body.
const Ollama API = "ollama"

// ollamaError is ErrorFor for Ollama, with the server's own messages
// (server/routes.go and llm/server.go).
func ollamaError(kind Kind, model string) Error {
	e := Error{Status: 400, Message: "invalid request"}
	switch kind {
	case Auth:
		e = Error{Status: 401, Message: "unauthorized"}
	case MissingKey:
		e = Error{Status: 401, Message: "unauthorized"}
	case RateLimit:
		e = Error{Status: 429, Message: "too many requests"}
	case Overloaded:
		e = Error{Status: 503, Message: "server busy, please try again.  maximum pending requests exceeded"}
	case Server:
		e = Error{Status: 500, Message: "an error was encountered while running the model: unexpected EOF"}
	case ContextOverflow:
		e.Message = "the input length exceeds the context length"
	case ModelNotFound:
		e = Error{Status: 404, Message: fmt.Sprintf("model %q not found, try pulling it first", model)}
	}
	return e
}

// ollamaBody is Ollama's error body, and (with a newline) its mid-stream
// error line.
func (e Error) ollamaBody() []byte {
	return JSON(struct {
		Error string `json:"error"`
	}{e.Message}, "")
}
