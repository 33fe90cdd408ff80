package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// responsesRequest is the part of a Responses request the emulator reads;
// the raw fields are echoed back in the response object, as the API does.
type responsesRequest struct {
	Model              *string         `json:"model"`
	Stream             bool            `json:"stream"`
	Include            []string        `json:"include"`
	Reasoning          json.RawMessage `json:"reasoning"`
	Instructions       json.RawMessage `json:"instructions"`
	MaxOutputTokens    json.RawMessage `json:"max_output_tokens"`
	ParallelToolCalls  json.RawMessage `json:"parallel_tool_calls"`
	PreviousResponseID json.RawMessage `json:"previous_response_id"`
	Store              json.RawMessage `json:"store"`
	Temperature        json.RawMessage `json:"temperature"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	Tools              json.RawMessage `json:"tools"`
	TopP               json.RawMessage `json:"top_p"`
}

// serveResponses answers POST /v1/responses.
func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request, body []byte) {
	if !s.authorize(w, r, OpenAIResponses, "") {
		return
	}
	invalid := func(msg string) { errorFor(OpenAIResponses, ErrorInvalidRequest, msg, "", "").write(w) }
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		invalid(fmt.Sprintf("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.) %v", err))
		return
	}
	if req.Model == nil {
		invalid("Missing required parameter: 'model'.")
		return
	}
	var reasoning struct {
		Summary *string `json:"summary"`
	}
	if len(req.Reasoning) > 0 && json.Unmarshal(req.Reasoning, &reasoning) != nil {
		invalid("Invalid type for 'reasoning': expected an object.")
		return
	}
	s.serveModel(w, OpenAIResponses, *req.Model, req.Stream, body, func(n int) int { return 4 + 2*n }, func(t *turn) {
		o := newResponsesTurn(t, &req,
			reasoning.Summary != nil && *reasoning.Summary != "",
			slices.Contains(req.Include, "reasoning.encrypted_content"))
		if t.profile.Responses.RequestIDHeader {
			w.Header().Set("x-request-id", o.reqID)
		}
		if t.stream {
			sw := newSSEWriter(r.Context(), w, "text/event-stream; charset=utf-8", nil)
			sw.arm(OpenAIResponses, t.reply, t.model)
			o.stream(sw)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(marshal(o.response(true))) //nolint:errcheck // the client went away
	})
}

// responsesTurn renders one turn in the Responses wire format.
type responsesTurn struct {
	*turn
	req                      *responsesRequest
	style                    ResponsesStyle
	respID, reasoningID      string
	reqID                    string
	messageID                string
	reasoningNum             int
	itemIDs, callIDs         []string
	showSummary, showEncrypt bool
	summary                  []string
	status, finalEvent       string
	incompleteReason         string
}

func newResponsesTurn(t *turn, req *responsesRequest, showSummary, showEncrypt bool) *responsesTurn {
	o := &responsesTurn{turn: t, req: req, style: t.profile.Responses, showSummary: showSummary, showEncrypt: showEncrypt}
	o.respID = t.ids.id("resp_emu_")
	o.reasoningNum = t.ids.num()
	o.reasoningID = fmt.Sprintf("rs_emu_%04d", o.reasoningNum)
	o.messageID = t.ids.id("msg_emu_")
	for _, tc := range t.reply.ToolCalls {
		o.itemIDs = append(o.itemIDs, t.ids.id("fc_emu_"))
		id := t.ids.id("call_emu_")
		if tc.ID != "" {
			id = tc.ID
		}
		o.callIDs = append(o.callIDs, id)
	}
	o.reqID = t.ids.id("req_emu_")
	if showSummary {
		o.summary = summaryParts(t.reply.Thinking)
	}
	o.status, o.finalEvent = "completed", "response.completed"
	switch t.reply.stopReason() {
	case canonical.StopMaxTokens:
		o.incompleteReason = "max_output_tokens"
	case canonical.StopContentFilter:
		o.incompleteReason = "content_filter"
	}
	if o.incompleteReason != "" {
		o.status, o.finalEvent = "incomplete", "response.incomplete"
	}
	return o
}

// summaryParts cuts reasoning text into summary parts before each blank
// line followed by "**"; joining the parts with "\n\n" gives the text back.
func summaryParts(s string) []string {
	if s == "" {
		return nil
	}
	var parts []string
	for {
		i := strings.Index(s, "\n\n**")
		if i <= 0 {
			return append(parts, s)
		}
		parts = append(parts, s[:i])
		s = s[i+2:]
	}
}

type summaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type reasoningItem struct {
	ID               string        `json:"id"`
	Type             string        `json:"type"`
	Status           string        `json:"status,omitempty"`
	EncryptedContent *string       `json:"encrypted_content,omitempty"`
	Summary          []summaryText `json:"summary"`
	// Content holds reasoning_text parts (ResponsesStyle.ReasoningText).
	Content []summaryText `json:"content,omitempty"`
}

type outputText struct {
	Type        string `json:"type"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
	Text        string `json:"text"`
}

type messageItem struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"`
	Status  string       `json:"status"`
	Content []outputText `json:"content"`
	Role    string       `json:"role"`
}

type functionCallItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
}

type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

func responsesUsageOf(u canonical.TokenUsage) responsesUsage {
	var ru responsesUsage
	ru.InputTokens = u.InputTokens + u.CachedInputTokens + u.CacheCreationInputTokens
	ru.InputTokensDetails.CachedTokens = u.CachedInputTokens
	ru.OutputTokens = u.OutputTokens
	ru.OutputTokensDetails.ReasoningTokens = u.ReasoningTokens
	ru.TotalTokens = ru.InputTokens + ru.OutputTokens
	return ru
}

// orRaw returns raw, or def when the request did not send the field.
func orRaw(raw json.RawMessage, def string) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(def)
	}
	return raw
}

// reasoning returns the reasoning item, complete or as first added.
func (o *responsesTurn) reasoning(done bool) reasoningItem {
	it := reasoningItem{ID: o.reasoningID, Type: "reasoning", Summary: []summaryText{}}
	if o.style.ReasoningText {
		it.Status, it.Content = "in_progress", []summaryText{}
		if done {
			it.Status = "completed"
			if o.reply.Thinking != "" {
				it.Content = []summaryText{{"reasoning_text", o.reply.Thinking}}
			}
		}
	}
	if o.showEncrypt {
		ec := encryptedContent(o.reply, o.reasoningNum)
		it.EncryptedContent = &ec
	}
	if done {
		for _, p := range o.summary {
			it.Summary = append(it.Summary, summaryText{"summary_text", p})
		}
	}
	return it
}

func (o *responsesTurn) message(done bool) messageItem {
	if !done {
		return messageItem{o.messageID, "message", "in_progress", []outputText{}, "assistant"}
	}
	status := "completed"
	if o.incompleteReason != "" {
		status = "incomplete"
	}
	return messageItem{o.messageID, "message", status, []outputText{o.text(o.reply.Text)}, "assistant"}
}

func (o *responsesTurn) text(s string) outputText {
	return outputText{"output_text", []any{}, []any{}, s}
}

func (o *responsesTurn) call(i int, done bool) functionCallItem {
	tc := o.reply.ToolCalls[i]
	if !done {
		return functionCallItem{o.itemIDs[i], "function_call", "in_progress", "", o.callIDs[i], tc.Name}
	}
	return functionCallItem{o.itemIDs[i], "function_call", "completed", tc.args(), o.callIDs[i], tc.Name}
}

// output is the complete output list.
func (o *responsesTurn) output() []any {
	out := []any{}
	if o.reply.hasReasoning() {
		out = append(out, o.reasoning(true))
	}
	if o.reply.Text != "" {
		out = append(out, o.message(true))
	}
	for i := range o.reply.ToolCalls {
		out = append(out, o.call(i, true))
	}
	return out
}

// response is the response object: complete, or as response.created and
// response.in_progress carry it.
func (o *responsesTurn) response(done bool) object {
	status, output, usage := "in_progress", []any{}, any(nil)
	var incomplete any
	if done {
		status, output, usage = o.status, o.output(), responsesUsageOf(o.usage)
		if o.incompleteReason != "" {
			incomplete = map[string]string{"reason": o.incompleteReason}
		}
	}
	q := o.req
	return object{
		{"id", o.respID},
		{"object", "response"},
		{"created_at", o.created},
		{"status", status},
		{"background", false},
		{"error", nil},
		{"incomplete_details", incomplete},
		{"instructions", orRaw(q.Instructions, "null")},
		{"max_output_tokens", orRaw(q.MaxOutputTokens, "null")},
		{"max_tool_calls", nil},
		{"model", o.model},
		{"output", output},
		{"parallel_tool_calls", orRaw(q.ParallelToolCalls, "true")},
		{"previous_response_id", orRaw(q.PreviousResponseID, "null")},
		{"prompt_cache_key", nil},
		{"reasoning", orRaw(q.Reasoning, `{"effort":null,"summary":null}`)},
		{"safety_identifier", nil},
		{"service_tier", "default"},
		{"store", orRaw(q.Store, "true")},
		{"temperature", orRaw(q.Temperature, "1.0")},
		{"text", json.RawMessage(`{"format":{"type":"text"},"verbosity":"medium"}`)},
		{"tool_choice", orRaw(q.ToolChoice, `"auto"`)},
		{"tools", orRaw(q.Tools, "[]")},
		{"top_logprobs", 0},
		{"top_p", orRaw(q.TopP, "1.0")},
		{"truncation", "disabled"},
		{"usage", usage},
		{"user", nil},
		{"metadata", json.RawMessage("{}")},
	}
}

// stream writes the turn as Responses SSE.
func (o *responsesTurn) stream(sw *sseWriter) {
	seq := 0
	send := func(typ string, rest ...member) {
		ev := make(object, 0, len(rest)+3)
		ev = append(ev, member{"type", typ}, member{"sequence_number", seq})
		ev = append(ev, rest...)
		if o.style.Obfuscation && strings.HasSuffix(typ, ".delta") {
			ev = append(ev, member{"obfuscation", obfuscation(seq)})
		}
		sw.event(typ, marshal(ev), 0)
		seq++
	}
	send("response.created", member{"response", o.response(false)})
	send("response.in_progress", member{"response", o.response(false)})

	index := 0
	if o.reply.hasReasoning() {
		id := o.reasoningID
		send("response.output_item.added", member{"output_index", index}, member{"item", o.reasoning(false)})
		if o.style.ReasoningText && o.reply.Thinking != "" {
			at := []member{{"item_id", id}, {"output_index", index}, {"content_index", 0}}
			send("response.content_part.added", append(at, member{"part", summaryText{"reasoning_text", ""}})...)
			for _, p := range chunks(o.reply.Thinking, o.chunk) {
				send("response.reasoning_text.delta", append(at, member{"delta", p})...)
			}
			send("response.reasoning_text.done", append(at, member{"text", o.reply.Thinking})...)
			send("response.content_part.done", append(at, member{"part", summaryText{"reasoning_text", o.reply.Thinking}})...)
		}
		for si, part := range o.summary {
			at := []member{{"item_id", id}, {"output_index", index}, {"summary_index", si}}
			send("response.reasoning_summary_part.added", append(at, member{"part", summaryText{"summary_text", ""}})...)
			for _, p := range chunks(part, o.chunk) {
				send("response.reasoning_summary_text.delta", append(at, member{"delta", p})...)
			}
			send("response.reasoning_summary_text.done", append(at, member{"text", part})...)
			send("response.reasoning_summary_part.done", append(at, member{"part", summaryText{"summary_text", part}})...)
		}
		send("response.output_item.done", member{"output_index", index}, member{"item", o.reasoning(true)})
		index++
	}
	if o.reply.Text != "" {
		id := o.messageID
		send("response.output_item.added", member{"output_index", index}, member{"item", o.message(false)})
		at := []member{{"item_id", id}, {"output_index", index}, {"content_index", 0}}
		send("response.content_part.added", append(at, member{"part", o.text("")})...)
		for _, p := range chunks(o.reply.Text, o.chunk) {
			send("response.output_text.delta", append(at, member{"delta", p}, member{"logprobs", []any{}})...)
		}
		send("response.output_text.done", append(at, member{"text", o.reply.Text}, member{"logprobs", []any{}})...)
		send("response.content_part.done", append(at, member{"part", o.text(o.reply.Text)})...)
		send("response.output_item.done", member{"output_index", index}, member{"item", o.message(true)})
		index++
	}
	if o.reply.InterleaveToolArguments && len(o.reply.ToolCalls) > 1 && !o.style.ArgumentsOnlyInDone {
		o.interleave(send, index)
		if sw.failHere() {
			return
		}
		send(o.finalEvent, member{"response", o.response(true)})
		return
	}
	for i, tc := range o.reply.ToolCalls {
		send("response.output_item.added", member{"output_index", index}, member{"item", o.call(i, false)})
		at := []member{{"item_id", o.itemIDs[i]}, {"output_index", index}}
		if !o.style.ArgumentsOnlyInDone {
			for _, p := range tokenPieces(tc.args()) {
				send("response.function_call_arguments.delta", append(at, member{"delta", p})...)
			}
		}
		send("response.function_call_arguments.done", append(at, member{"arguments", tc.args()})...)
		send("response.output_item.done", member{"output_index", index}, member{"item", o.call(i, true)})
		index++
	}
	if sw.failHere() {
		return
	}
	send(o.finalEvent, member{"response", o.response(true)})
}

// interleave adds every function_call item from output index first, then
// sends their argument deltas in turn, then each item's done events in
// reverse order (Reply.InterleaveToolArguments).
func (o *responsesTurn) interleave(send func(string, ...member), first int) {
	calls := o.reply.ToolCalls
	pieces := make([][]string, len(calls))
	for i, tc := range calls {
		send("response.output_item.added", member{"output_index", first + i}, member{"item", o.call(i, false)})
		pieces[i] = tokenPieces(tc.args())
	}
	for round := 0; ; round++ {
		sent := false
		for i := range calls {
			if round < len(pieces[i]) {
				at := []member{{"item_id", o.itemIDs[i]}, {"output_index", first + i}}
				send("response.function_call_arguments.delta", append(at, member{"delta", pieces[i][round]})...)
				sent = true
			}
		}
		if !sent {
			break
		}
	}
	for i := len(calls) - 1; i >= 0; i-- {
		at := []member{{"item_id", o.itemIDs[i]}, {"output_index", first + i}}
		send("response.function_call_arguments.done", append(at, member{"arguments", calls[i].args()})...)
		send("response.output_item.done", member{"output_index", first + i}, member{"item", o.call(i, true)})
	}
}
