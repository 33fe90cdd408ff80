package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// geminiRequest is the part of a generateContent request the emulator reads.
type geminiRequest struct {
	Contents         json.RawMessage `json:"contents"`
	GenerationConfig *struct {
		ThinkingConfig *struct {
			IncludeThoughts bool `json:"includeThoughts"`
			// The API reads protobuf JSON, which accepts the field's
			// proto name too (Python clients send it).
			IncludeThoughtsProto bool `json:"include_thoughts"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

// serveGemini answers POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent.
func (s *Server) serveGemini(w http.ResponseWriter, r *http.Request, body []byte) {
	model, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	var stream bool
	switch method {
	case "generateContent":
	case "streamGenerateContent":
		stream = true
	default:
		writePlainError(w, http.StatusNotFound, fmt.Sprintf("emulator: no Gemini method %q (want generateContent or streamGenerateContent)", method))
		return
	}
	if !s.authorize(w, r, Gemini, model) {
		return
	}
	invalid := func(msg string) { errorFor(Gemini, ErrorInvalidRequest, msg, model, "").write(w) }
	sse := r.URL.Query().Get("alt") == "sse"
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		invalid(fmt.Sprintf("Invalid JSON payload received. %v", err))
		return
	}
	if len(req.Contents) == 0 {
		invalid("* GenerateContentRequest.contents: contents is not specified\n")
		return
	}
	showThoughts := req.GenerationConfig != nil && req.GenerationConfig.ThinkingConfig != nil &&
		(req.GenerationConfig.ThinkingConfig.IncludeThoughts || req.GenerationConfig.ThinkingConfig.IncludeThoughtsProto)
	s.serveModel(w, Gemini, model, stream, body, func(int) int { return 1 }, func(t *turn) {
		g := newGeminiTurn(t, showThoughts)
		switch {
		case t.stream && sse:
			sw := newSSEWriter(r.Context(), w, "text/event-stream", nil)
			sw.crlf = t.profile.Gemini.CRLF
			sw.arm(Gemini, t.reply, t.model)
			g.stream(sw.failHere, func(resp geminiResponse) {
				data := marshal(resp)
				if t.profile.Gemini.GoogleSpacing {
					data = googleStyle(data)
				}
				sw.event("", data, 0)
			})
			return
		case t.stream:
			// Without alt=sse the API streams one JSON array, each element
			// a whole response written as generateContent writes it.
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusOK)
			aw := newArrayWriter(r.Context(), w)
			g.stream(func() bool { return false }, func(resp geminiResponse) { aw.element(marshalIndent(resp, "  ")) })
			aw.close()
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(http.StatusOK)
		w.Write(marshalIndent(g.whole(), "  ")) //nolint:errcheck // the client went away
	})
}

// geminiTurn renders one turn in the generateContent wire format.
type geminiTurn struct {
	*turn
	responseID   string
	sigNum       int
	showThoughts bool
}

func newGeminiTurn(t *turn, showThoughts bool) *geminiTurn {
	g := &geminiTurn{turn: t, showThoughts: showThoughts && t.reply.Thinking != ""}
	g.sigNum = t.ids.num()
	g.responseID = fmt.Sprintf("emu_%04d", g.sigNum)
	return g
}

type geminiFunctionCall struct {
	Name         string             `json:"name,omitempty"`
	Args         json.RawMessage    `json:"args,omitempty"`
	ID           string             `json:"id,omitempty"`
	PartialArgs  []geminiPartialArg `json:"partialArgs,omitempty"`
	WillContinue bool               `json:"willContinue,omitempty"`
}

// geminiPartialArg is one streamed argument (Vertex AI's PartialArg).
type geminiPartialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue,omitempty"`
	NumberValue  json.RawMessage `json:"numberValue,omitempty"`
	BoolValue    *bool           `json:"boolValue,omitempty"`
	NullValue    string          `json:"nullValue,omitempty"`
	WillContinue bool            `json:"willContinue,omitempty"`
}

type geminiPart struct {
	Text             *string             `json:"text,omitempty"`
	Thought          bool                `json:"thought,omitempty"`
	FunctionCall     *geminiFunctionCall `json:"functionCall,omitempty"`
	ThoughtSignature string              `json:"thoughtSignature,omitempty"`
}

type geminiContent struct {
	Parts []geminiPart `json:"parts"`
	Role  string       `json:"role"`
}

type geminiCandidate struct {
	Content      geminiContent `json:"content"`
	FinishReason string        `json:"finishReason,omitempty"`
	Index        int           `json:"index"`
}

type geminiModalityCount struct {
	Modality   string `json:"modality"`
	TokenCount int    `json:"tokenCount"`
}

type geminiUsage struct {
	PromptTokenCount        int                   `json:"promptTokenCount"`
	CandidatesTokenCount    int                   `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount         int                   `json:"totalTokenCount"`
	CachedContentTokenCount int                   `json:"cachedContentTokenCount,omitempty"`
	PromptTokensDetails     []geminiModalityCount `json:"promptTokensDetails"`
	ThoughtsTokenCount      int                   `json:"thoughtsTokenCount,omitempty"`
}

type geminiResponse struct {
	Candidates    []geminiCandidate `json:"candidates"`
	UsageMetadata geminiUsage       `json:"usageMetadata"`
	ModelVersion  string            `json:"modelVersion"`
	ResponseID    string            `json:"responseId"`
}

// geminiFinishReason maps a canonical stop reason to a finishReason;
// values that are not canonical pass through verbatim.
func geminiFinishReason(sr canonical.StopReason) string {
	switch sr {
	case canonical.StopEndTurn, canonical.StopToolUse, canonical.StopStopSequence:
		return "STOP"
	case canonical.StopMaxTokens:
		return "MAX_TOKENS"
	case canonical.StopContentFilter:
		return "SAFETY"
	}
	return string(sr)
}

// usageAt is the cumulative usage once the given shares of the thoughts
// and of the answer have been sent, each as done/all.
func (g *geminiTurn) usageAt(thoughtsDone, thoughtsAll, answerDone, answerAll int) geminiUsage {
	u := g.usage
	prompt := u.InputTokens + u.CachedInputTokens + u.CacheCreationInputTokens
	thoughts := share(u.ReasoningTokens, thoughtsDone, thoughtsAll)
	cands := share(max(0, u.OutputTokens-u.ReasoningTokens), answerDone, answerAll)
	return geminiUsage{
		PromptTokenCount:        prompt,
		CandidatesTokenCount:    cands,
		TotalTokenCount:         prompt + cands + thoughts,
		CachedContentTokenCount: u.CachedInputTokens,
		PromptTokensDetails:     []geminiModalityCount{{"TEXT", prompt}},
		ThoughtsTokenCount:      thoughts,
	}
}

// share is total*done/all rounded down, and total when all is zero.
func share(total, done, all int) int {
	if all <= 0 || done >= all {
		return total
	}
	return total * done / all
}

func (g *geminiTurn) functionCalls() []geminiPart {
	var parts []geminiPart
	for _, tc := range g.reply.ToolCalls {
		parts = append(parts, geminiPart{FunctionCall: &geminiFunctionCall{Name: tc.Name, Args: json.RawMessage(tc.args()), ID: tc.ID}})
	}
	if len(parts) > 0 && g.reply.hasReasoning() {
		parts[0].ThoughtSignature = signature(g.reply, g.sigNum)
	}
	return parts
}

func (g *geminiTurn) response(parts []geminiPart, finish string, u geminiUsage) geminiResponse {
	return geminiResponse{
		Candidates:    []geminiCandidate{{geminiContent{parts, "model"}, finish, 0}},
		UsageMetadata: u,
		ModelVersion:  g.model,
		ResponseID:    g.responseID,
	}
}

// whole is the non-streamed body.
func (g *geminiTurn) whole() geminiResponse {
	var parts []geminiPart
	if g.showThoughts {
		parts = append(parts, geminiPart{Text: &g.reply.Thinking, Thought: true})
	}
	if g.reply.Text != "" {
		p := geminiPart{Text: &g.reply.Text}
		if len(g.reply.ToolCalls) == 0 && g.reply.hasReasoning() {
			p.ThoughtSignature = signature(g.reply, g.sigNum)
		}
		parts = append(parts, p)
	}
	parts = append(parts, g.functionCalls()...)
	if len(parts) == 0 {
		empty := ""
		parts = []geminiPart{{Text: &empty}}
	}
	return g.response(parts, geminiFinishReason(g.reply.stopReason()), g.usageAt(1, 1, 1, 1))
}

// stream renders the turn as the successive responses of a Gemini stream,
// each a whole GenerateContentResponse, handing each to emit; before the
// response carrying the finishReason it asks failHere whether the stream
// failed instead.
func (g *geminiTurn) stream(failHere func() bool, emit func(geminiResponse)) {
	send := func(parts []geminiPart, finish string, u geminiUsage) {
		emit(g.response(parts, finish, u))
	}
	emptyFinal := g.profile.Gemini.EmptyFinalChunk
	finish := geminiFinishReason(g.reply.stopReason())
	thinking, text := g.reply.Thinking, g.reply.Text
	var tAll, tDone int
	if g.showThoughts {
		tAll = len(thinking)
		for _, c := range chunks(thinking, g.chunk) {
			tDone += len(c)
			send([]geminiPart{{Text: &c, Thought: true}}, "", g.usageAt(tDone, tAll, 0, 1))
		}
	}
	answerAll := len(text) + 1 // the +1 is the function-call or final event
	answerDone := 0
	pieces := chunks(text, g.chunk)
	for i, c := range pieces {
		answerDone += len(c)
		p := geminiPart{Text: &c}
		if i == 0 && len(g.reply.ToolCalls) == 0 && g.reply.hasReasoning() {
			p.ThoughtSignature = signature(g.reply, g.sigNum)
		}
		last := i == len(pieces)-1 && len(g.reply.ToolCalls) == 0 && !emptyFinal
		if last && g.reply.StreamError != "" {
			// A failing stream sends all its text, then the error.
			send([]geminiPart{p}, "", g.usageAt(1, 1, answerDone, answerAll))
			failHere()
			return
		}
		if last {
			send([]geminiPart{p}, finish, g.usageAt(1, 1, 1, 1))
			return
		}
		send([]geminiPart{p}, "", g.usageAt(1, 1, answerDone, answerAll))
	}
	if calls := g.functionCalls(); len(calls) > 0 && g.reply.StreamFunctionCallArguments {
		for _, c := range calls {
			for _, p := range g.streamedCall(c) {
				send([]geminiPart{p}, "", g.usageAt(1, 1, 1, 1))
			}
		}
	} else if len(calls) > 0 {
		send(calls, "", g.usageAt(1, 1, 1, 1))
	}
	if failHere() {
		return
	}
	empty := ""
	p := geminiPart{Text: &empty}
	if len(g.reply.ToolCalls) == 0 && g.reply.hasReasoning() {
		p.ThoughtSignature = signature(g.reply, g.sigNum)
	}
	send([]geminiPart{p}, finish, g.usageAt(1, 1, 1, 1))
}

// streamedCall renders one call as Vertex AI streams its arguments
// (Reply.StreamFunctionCallArguments): the name (and id, and the call's
// signature) with willContinue, one part of partialArgs per scalar of the
// arguments — a string cut into pieces that continue until the last —
// then an empty functionCall.
func (g *geminiTurn) streamedCall(c geminiPart) []geminiPart {
	fc := c.FunctionCall
	start := c
	start.FunctionCall = &geminiFunctionCall{Name: fc.Name, ID: fc.ID, WillContinue: true}
	parts := []geminiPart{start}
	for _, a := range partialArgs(fc.Args, g.chunk) {
		parts = append(parts, geminiPart{FunctionCall: &geminiFunctionCall{PartialArgs: []geminiPartialArg{a}, WillContinue: true}})
	}
	return append(parts, geminiPart{FunctionCall: &geminiFunctionCall{}})
}

// partialArgs walks a JSON object in document order and returns a
// partial argument per scalar, strings in pieces of chunk bytes.
func partialArgs(args json.RawMessage, chunk int) []geminiPartialArg {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var out []geminiPartialArg
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					if err := walk(path + memberPath(k.(string))); err != nil {
						return err
					}
				}
			case '[':
				for i := 0; dec.More(); i++ {
					if err := walk(path + "[" + strconv.Itoa(i) + "]"); err != nil {
						return err
					}
				}
			}
			_, err := dec.Token() // the closing delimiter
			return err
		case string:
			pieces := chunks(v, chunk)
			if len(pieces) == 0 {
				pieces = []string{""}
			}
			for i, p := range pieces {
				out = append(out, geminiPartialArg{JSONPath: path, StringValue: &p, WillContinue: i < len(pieces)-1})
			}
		case json.Number:
			out = append(out, geminiPartialArg{JSONPath: path, NumberValue: json.RawMessage(v)})
		case bool:
			out = append(out, geminiPartialArg{JSONPath: path, BoolValue: &v})
		case nil:
			out = append(out, geminiPartialArg{JSONPath: path, NullValue: "NULL_VALUE"})
		}
		return nil
	}
	if err := walk("$"); err != nil {
		return nil
	}
	return out
}

// memberPath is the JSON path segment of an object member: .name for
// plain names, ['name'] otherwise.
func memberPath(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			plain = false
		}
	}
	if plain {
		return "." + name
	}
	return "['" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name) + "']"
}
