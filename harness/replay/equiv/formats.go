package equiv

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The rules of each format rewrite a decoded body (null members already
// dropped) in place. docs/request-matching.md has them as a table; each
// is a form the provider's API documents as meaning the same.

// anthropic is the Messages API (also the body Bedrock's invoke and
// Vertex's rawPredict take).
func anthropic(m map[string]any, o Options) {
	dropIf(m, "stream", false)
	if !o.LimitSet {
		delete(m, "max_tokens")
	}
	dropIf(m, "temperature", num("1")) // documented default 1.0
	if s, ok := m["system"].(string); ok {
		m["system"] = textBlocks("text", s)
	}
	joinTexts(m, "system", "text", true)
	dropEmpty(m, "system", "stop_sequences", "tools", "metadata")
	if t, ok := m["thinking"].(map[string]any); ok && t["type"] == "disabled" && len(t) == 1 {
		delete(m, "thinking")
	}
	if tc, ok := m["tool_choice"].(map[string]any); ok {
		dropIf(tc, "disable_parallel_tool_use", false)
		if tc["type"] == "auto" && len(tc) == 1 {
			delete(m, "tool_choice") // auto is the default with tools, meaningless without
		}
	}
	for _, msg := range objects(m["messages"]) {
		if s, ok := msg["content"].(string); ok {
			msg["content"] = textBlocks("text", s)
		}
	}
	mergeTurns(m)
	inTurnCallOrder(m, "assistant", anthropicCall, anthropicResult)
	for _, msg := range objects(m["messages"]) {
		for _, b := range objects(msg["content"]) {
			if b["type"] != "tool_result" {
				continue
			}
			dropIf(b, "is_error", false)
			switch c := b["content"].(type) {
			case string:
				if c == "" {
					delete(b, "content")
				} else {
					b["content"] = textBlocks("text", c)
				}
			case []any:
				if len(c) == 0 {
					delete(b, "content")
				}
			}
		}
	}
}

// mergeTurns joins consecutive messages of the same role into one whose
// content is theirs in order: "Consecutive user or assistant turns in your
// request will be combined into a single turn" (the Messages API
// reference, messages). A message whose content is not a list of blocks
// is left alone.
func mergeTurns(m map[string]any) {
	msgs, ok := m["messages"].([]any)
	if !ok {
		return
	}
	var out []any
	for _, x := range msgs {
		msg, ok := x.(map[string]any)
		if n := len(out); ok && n > 0 {
			prev, _ := out[n-1].(map[string]any)
			pc, ok1 := prev["content"].([]any)
			mc, ok2 := msg["content"].([]any)
			if prev != nil && len(prev) == 2 && len(msg) == 2 && ok1 && ok2 && prev["role"] == msg["role"] {
				prev["content"] = append(pc, mc...)
				continue
			}
		}
		out = append(out, x)
	}
	m["messages"] = out
}

func anthropicCall(b map[string]any) (string, bool) {
	id, ok := b["id"].(string)
	return id, ok && b["type"] == "tool_use"
}

func anthropicResult(b map[string]any) (string, bool) {
	id, ok := b["tool_use_id"].(string)
	return id, ok && b["type"] == "tool_result"
}

// inTurnCallOrder puts each run of consecutive results (the blocks result
// names a call for) in a message's content into the order of the calls
// they answer, the call blocks of the message just before it, whose role
// is callerRole. Anthropic pairs a tool_result with its tool_use by
// tool_use_id, and Converse a toolResult with its toolUse by toolUseId:
// the order of the results among themselves is the caller's. Blocks that
// are not results keep their places (Anthropic wants the results before
// any text: text moved among them is a difference), and a run with a
// result that names none of those calls is compared as sent.
func inTurnCallOrder(m map[string]any, callerRole string, call, result func(map[string]any) (string, bool)) {
	var calls map[string]int
	for _, msg := range objects(m["messages"]) {
		blocks, _ := msg["content"].([]any)
		if msg["role"] == callerRole {
			calls = callOrder(blocks, call)
			continue
		}
		sortRuns(blocks, result, calls)
		calls = nil
	}
}

// callOrder maps the id of each call in items (those call names an id
// for) to its position among them.
func callOrder(items []any, call func(map[string]any) (string, bool)) map[string]int {
	pos := map[string]int{}
	for _, it := range items {
		if id, ok := call(mapOf(it)); ok {
			if _, seen := pos[id]; !seen {
				pos[id] = len(pos)
			}
		}
	}
	return pos
}

// sortRuns sorts each run of two or more consecutive results in items
// (those result names the answered call's id for) by the position in
// calls of the call each answers, equal positions keeping their order. A
// run with a result whose call is not in calls is left as it is.
func sortRuns(items []any, result func(map[string]any) (string, bool), calls map[string]int) {
	answered := func(it any) (int, bool) {
		id, ok := result(mapOf(it))
		if !ok {
			return 0, false
		}
		pos, ok := calls[id]
		return pos, ok
	}
	for i := 0; i < len(items); {
		if _, ok := result(mapOf(items[i])); !ok {
			i++
			continue
		}
		j, known := i, true
		for ; j < len(items); j++ {
			if _, ok := result(mapOf(items[j])); !ok {
				break
			}
			_, ok := answered(items[j])
			known = known && ok
		}
		if known && j-i > 1 {
			slices.SortStableFunc(items[i:j], func(a, b any) int {
				x, _ := answered(a)
				y, _ := answered(b)
				return x - y
			})
		}
		i = j
	}
}

// chat is OpenAI's Chat Completions, and the compatible servers'.
func chat(m map[string]any, o Options) {
	dropIf(m, "stream", false)
	limit(m, o, "max_completion_tokens", "max_tokens")
	dropIf(m, "temperature", num("1"))
	dropIf(m, "top_p", num("1"))
	dropIf(m, "n", num("1"))
	dropIf(m, "presence_penalty", num("0"))
	dropIf(m, "frequency_penalty", num("0"))
	dropIf(m, "parallel_tool_calls", true)
	dropEmpty(m, "tools", "stop")
	toolChoice(m, "auto", "none")
	for _, t := range objects(m["tools"]) {
		if f, ok := t["function"].(map[string]any); ok {
			dropIf(f, "strict", false)
		}
	}
	for _, msg := range objects(m["messages"]) {
		switch c := msg["content"].(type) {
		case string:
			if c == "" && msg["role"] == "assistant" {
				delete(msg, "content") // "" ≡ null ≡ absent beside tool calls
			} else {
				msg["content"] = textBlocks("text", c)
			}
		case []any:
			if len(c) == 0 && msg["role"] == "assistant" {
				delete(msg, "content")
			}
		}
		dropEmpty(msg, "tool_calls")
		for _, tc := range objects(msg["tool_calls"]) {
			if f, ok := tc["function"].(map[string]any); ok {
				parseArguments(f, "arguments")
			}
		}
	}
	chatToolsInCallOrder(m)
}

// chatToolsInCallOrder puts the tool messages that follow an assistant
// message in the order of its tool_calls: a tool message answers the
// call its tool_call_id names ("Tool call that this message is
// responding to", the API reference), so their order among themselves is
// the caller's. A run with a tool message answering no call of that
// assistant message is compared as sent.
func chatToolsInCallOrder(m map[string]any) {
	msgs, _ := m["messages"].([]any)
	for i := 0; i < len(msgs); i++ {
		a := mapOf(msgs[i])
		if a["role"] != "assistant" {
			continue
		}
		tcs, _ := a["tool_calls"].([]any)
		calls := callOrder(tcs, chatCall)
		j := i + 1
		for j < len(msgs) && mapOf(msgs[j])["role"] == "tool" {
			j++
		}
		sortRuns(msgs[i+1:j], chatResult, calls)
		i = j - 1
	}
}

func chatCall(tc map[string]any) (string, bool) {
	id, ok := tc["id"].(string)
	return id, ok
}

func chatResult(msg map[string]any) (string, bool) {
	id, ok := msg["tool_call_id"].(string)
	return id, ok && msg["role"] == "tool"
}

// responses is OpenAI's Responses API.
func responses(m map[string]any, o Options) {
	dropIf(m, "stream", false)
	dropIf(m, "store", true)
	limit(m, o, "max_output_tokens")
	dropIf(m, "temperature", num("1"))
	dropIf(m, "top_p", num("1"))
	dropIf(m, "parallel_tool_calls", true)
	dropIf(m, "truncation", "disabled")
	// include selects extra data the response carries (such as
	// reasoning.encrypted_content); the recorded answer is served all the
	// same, and what an adapter does with that data shows in its later
	// requests.
	delete(m, "include")
	dropEmpty(m, "tools", "instructions")
	toolChoice(m, "auto", "none")
	if t, ok := m["text"].(map[string]any); ok && len(t) == 1 {
		if f, ok := t["format"].(map[string]any); ok && len(f) == 1 && f["type"] == "text" {
			delete(m, "text")
		}
	}
	if s, ok := m["input"].(string); ok {
		m["input"] = []any{map[string]any{"type": "message", "role": "user", "content": s}}
	}
	for _, it := range objects(m["input"]) {
		if _, ok := it["type"]; !ok && it["role"] != nil {
			it["type"] = "message"
		}
		switch it["type"] {
		case "message":
			if s, ok := it["content"].(string); ok {
				kind := "input_text"
				if it["role"] == "assistant" {
					kind = "output_text"
				}
				it["content"] = textBlocks(kind, s)
			}
		case "function_call":
			parseArguments(it, "arguments")
			// A function_call input item's id and status are the
			// API's own, "populated when items are returned via API"
			// (openai-python's ResponseFunctionToolCallParam): optional
			// when sent back; call_id pairs the call with its output.
			delete(it, "id")
			delete(it, "status")
		}
	}
	leadingInstructions(m)
	outputsInCallOrder(m)
}

// outputsInCallOrder puts each run of consecutive function_call_output
// items in the order of the function_call items before it that they
// answer: an output names its call by call_id ("The unique ID of the
// function tool call generated by the model", the API reference), so the
// order of consecutive outputs is the caller's. Items keep their places
// otherwise, and a run with an output answering no earlier call is
// compared as sent.
func outputsInCallOrder(m map[string]any) {
	input, _ := m["input"].([]any)
	calls := map[string]int{}
	for i := 0; i < len(input); {
		it := mapOf(input[i])
		if id, ok := responsesCall(it); ok {
			if _, seen := calls[id]; !seen {
				calls[id] = len(calls)
			}
		}
		if _, ok := responsesOutput(it); !ok {
			i++
			continue
		}
		j := i
		for j < len(input) {
			if _, ok := responsesOutput(mapOf(input[j])); !ok {
				break
			}
			j++
		}
		sortRuns(input[i:j], responsesOutput, calls)
		i = j
	}
}

func responsesCall(it map[string]any) (string, bool) {
	id, ok := it["call_id"].(string)
	return id, ok && it["type"] == "function_call"
}

func responsesOutput(it map[string]any) (string, bool) {
	id, ok := it["call_id"].(string)
	return id, ok && it["type"] == "function_call_output"
}

// leadingInstructions moves the system and developer messages that open
// a Responses input into instructions, their texts joined by a blank
// line: instructions is "a system (or developer) message inserted into
// the model's context" (the API reference), so the two forms are one
// request when no previous_response_id carries earlier instructions.
// Messages whose content is not text alone stay where they are.
func leadingInstructions(m map[string]any) {
	if _, chained := m["previous_response_id"]; chained {
		return
	}
	input, _ := m["input"].([]any)
	var texts []string
	if s, ok := m["instructions"].(string); ok && s != "" {
		texts = append(texts, s)
	}
	n := 0
	for ; n < len(input); n++ {
		it, _ := input[n].(map[string]any)
		if it == nil || it["type"] != "message" || (it["role"] != "system" && it["role"] != "developer") {
			break
		}
		t, ok := onlyText(it["content"])
		if !ok {
			break
		}
		texts = append(texts, t)
	}
	if n == 0 {
		return
	}
	m["instructions"] = strings.Join(texts, "\n\n")
	m["input"] = input[n:]
}

// onlyText returns the text of a message content made of input_text
// blocks alone.
func onlyText(c any) (string, bool) {
	blocks, ok := c.([]any)
	if !ok || len(blocks) == 0 {
		return "", false
	}
	var texts []string
	for _, b := range blocks {
		bm, _ := b.(map[string]any)
		t, isText := bm["text"].(string)
		if bm == nil || bm["type"] != "input_text" || !isText || len(bm) != 2 {
			return "", false
		}
		texts = append(texts, t)
	}
	return strings.Join(texts, "\n\n"), true
}

// gemini is Gemini's generateContent, whose JSON (proto3 JSON) accepts
// snake_case field names for its camelCase ones.
func gemini(m map[string]any, o Options) map[string]any {
	m = camelize(m, 0).(map[string]any)
	if gc, ok := m["generationConfig"].(map[string]any); ok {
		limit(gc, o, "maxOutputTokens")
		dropIf(gc, "candidateCount", num("1"))
	}
	dropEmpty(m, "generationConfig", "tools", "safetySettings")
	if si, ok := m["systemInstruction"].(map[string]any); ok {
		delete(si, "role") // the system instruction's role is ignored
		joinTexts(si, "parts", "", false)
	}
	var calls map[string]int // the last model content's call ids, by position
	for _, c := range objects(m["contents"]) {
		if _, ok := c["role"]; !ok {
			c["role"] = "user" // a content without a role is the user's
		}
		if c["role"] == "model" {
			calls = callPositions(c)
		} else {
			inCallOrder(c, calls)
		}
		for _, p := range objects(c["parts"]) {
			if sig, ok := p["thoughtSignature"].(string); ok {
				p["thoughtSignature"] = canonicalSignature(sig)
			}
			fr, ok := p["functionResponse"].(map[string]any)
			if !ok {
				continue
			}
			// The response's keys are the caller's choice ("output",
			// "result", …); only "error" says the call failed. A result
			// of one member is compared by its value.
			if r, ok := fr["response"].(map[string]any); ok && len(r) == 1 {
				for k, v := range r {
					if k != "output" && k != "error" {
						fr["response"] = map[string]any{"output": v}
					}
				}
			}
		}
	}
	if tc, ok := m["toolConfig"].(map[string]any); ok {
		if fc, ok := tc["functionCallingConfig"].(map[string]any); ok && len(fc) == 1 && fc["mode"] == "AUTO" {
			delete(tc, "functionCallingConfig")
		}
		dropEmpty(m, "toolConfig")
	}
	return m
}

// canonicalSignature returns a thoughtSignature as the standard, padded
// base64 of the bytes it holds. The field is bytes in Gemini's API, and a
// bytes field's JSON form is base64 in either alphabet, padded or not
// (ProtoBytes): "skip/thought/signature/validator" is the value an SDK
// holding the placeholder skip_thought_signature_validator as bytes
// sends. A value that is not base64 is returned as it is.
func canonicalSignature(s string) string {
	b, err := ProtoBytes(s)
	if err != nil {
		return s
	}
	return base64.StdEncoding.EncodeToString(b)
}

// ProtoBytes decodes s, the JSON form of a protobuf bytes field, as
// protobuf's JSON mapping reads it: base64 in the standard alphabet or
// the URL-safe one (one alphabet per value, the URL-safe one when s holds
// '-' or '_'), with or without padding.
func ProtoBytes(s string) ([]byte, error) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("equiv: %q is not protobuf JSON bytes (base64): %w", s, err)
	}
	return b, nil
}

// callPositions maps the id of each functionCall part of a model content
// to its position among the content's calls.
func callPositions(c map[string]any) map[string]int {
	pos := map[string]int{}
	for _, p := range objects(c["parts"]) {
		if fc, ok := p["functionCall"].(map[string]any); ok {
			if id, ok := fc["id"].(string); ok && id != "" {
				pos[id] = len(pos)
			}
		}
	}
	return pos
}

// inCallOrder puts the functionResponse parts of a content in the order
// of the calls they answer when each names its call by id: Gemini pairs a
// response with its call by that id ("populated by the client to match
// the corresponding function call id", the API's FunctionResponse
// reference), so their order is then the caller's. Without ids Gemini
// pairs by position, and the order is compared as sent.
func inCallOrder(c map[string]any, calls map[string]int) {
	type response struct {
		part any
		call int // the answered call's position
	}
	parts, _ := c["parts"].([]any)
	var slots []int
	var responses []response
	for i, p := range parts {
		fr, ok := mapOf(p)["functionResponse"].(map[string]any)
		if !ok {
			continue
		}
		id, _ := fr["id"].(string)
		call, ok := calls[id]
		if !ok {
			return
		}
		slots = append(slots, i)
		responses = append(responses, response{p, call})
	}
	if len(slots) < 2 {
		return
	}
	slices.SortStableFunc(responses, func(a, b response) int { return a.call - b.call })
	for k, i := range slots {
		parts[i] = responses[k].part
	}
}

// ollama is Ollama's native /api/chat (and /api/generate).
func ollama(m map[string]any, o Options) {
	if _, ok := m["stream"]; !ok {
		m["stream"] = true // Ollama streams unless told not to
	}
	if opts, ok := m["options"].(map[string]any); ok {
		limit(opts, o, "num_predict")
	}
	dropEmpty(m, "options", "tools")
	for _, msg := range objects(m["messages"]) {
		dropIf(msg, "content", "")
		dropEmpty(msg, "tool_calls", "images")
		for _, tc := range objects(msg["tool_calls"]) {
			if f, ok := tc["function"].(map[string]any); ok {
				parseArguments(f, "arguments")
			}
		}
	}
}

// converse is Amazon Bedrock's Converse API.
func converse(m map[string]any, o Options) {
	if ic, ok := m["inferenceConfig"].(map[string]any); ok {
		limit(ic, o, "maxTokens")
	}
	dropEmpty(m, "inferenceConfig", "system")
	if tc, ok := m["toolConfig"].(map[string]any); ok {
		if ch, ok := tc["toolChoice"].(map[string]any); ok && len(ch) == 1 {
			if a, ok := ch["auto"].(map[string]any); ok && len(a) == 0 {
				delete(tc, "toolChoice")
			}
		}
	}
	for _, msg := range objects(m["messages"]) {
		for _, b := range objects(msg["content"]) {
			if tr, ok := b["toolResult"].(map[string]any); ok {
				dropIf(tr, "status", "success")
			}
		}
	}
	inTurnCallOrder(m, "assistant", converseCall, converseResult)
}

func converseCall(b map[string]any) (string, bool) {
	id, ok := mapOf(b["toolUse"])["toolUseId"].(string)
	return id, ok
}

func converseResult(b map[string]any) (string, bool) {
	id, ok := mapOf(b["toolResult"])["toolUseId"].(string)
	return id, ok
}

// num is a number in canonicalNumber's form.
func num(s string) json.Number { return json.Number(s) }

// dropIf deletes key when its value is v (a default).
func dropIf(m map[string]any, key string, v any) {
	if x, ok := m[key]; ok && scalarEqual(x, v) {
		delete(m, key)
	}
}

// dropEmpty deletes each key whose value is "", [] or {}.
func dropEmpty(m map[string]any, keys ...string) {
	for _, k := range keys {
		switch x := m[k].(type) {
		case string:
			if x == "" {
				delete(m, k)
			}
		case []any:
			if len(x) == 0 {
				delete(m, k)
			}
		case map[string]any:
			if len(x) == 0 {
				delete(m, k)
			}
		}
	}
}

// limit handles an output-token limit and its aliases (the first name is
// the one kept): not compared unless the caller set one.
func limit(m map[string]any, o Options, name string, aliases ...string) {
	for _, a := range aliases {
		if v, ok := m[a]; ok {
			if _, has := m[name]; !has {
				m[name] = v
			}
			delete(m, a)
		}
	}
	if !o.LimitSet {
		delete(m, name)
	}
}

// toolChoice drops a string tool_choice that is the API's default: auto
// with tools, none without.
func toolChoice(m map[string]any, withTools, without string) {
	tc, ok := m["tool_choice"].(string)
	if !ok {
		return
	}
	_, tools := m["tools"]
	if tools && tc == withTools || !tools && tc == without {
		delete(m, "tool_choice")
	}
}

// joinTexts rewrites the list at key, when every element is a plain text
// block (only a text and, when kind is set, type kind), into one block
// holding the texts joined by a blank line: the prompt the model reads
// is the same (a system prompt in several blocks or parts). With
// typed, the blocks are {"type": kind, "text": …}; otherwise {"text": …}.
func joinTexts(m map[string]any, key, kind string, typed bool) {
	a, ok := m[key].([]any)
	if !ok || len(a) < 2 {
		return
	}
	texts := make([]string, 0, len(a))
	for _, e := range a {
		b, ok := e.(map[string]any)
		t, isText := b["text"].(string)
		if !ok || !isText || typed && (len(b) != 2 || b["type"] != kind) || !typed && len(b) != 1 {
			return
		}
		texts = append(texts, t)
	}
	joined := strings.Join(texts, "\n\n")
	if typed {
		m[key] = textBlocks(kind, joined)
		return
	}
	m[key] = []any{map[string]any{"text": joined}}
}

// textBlocks is one text block holding s, the form a plain string stands
// for.
func textBlocks(kind, s string) []any {
	return []any{map[string]any{"type": kind, "text": s}}
}

// objects returns the objects in v, a JSON array; nil for anything else.
func objects(v any) []map[string]any {
	a, _ := v.([]any)
	out := make([]map[string]any, 0, len(a))
	for _, e := range a {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// parseArguments replaces a JSON-encoded string at key (a tool call's
// arguments) by its decoded, normalised value, so that the arguments'
// key order and spacing do not count; a string that is not JSON stays.
func parseArguments(m map[string]any, key string) {
	s, ok := m[key].(string)
	if !ok {
		return
	}
	if strings.TrimSpace(s) == "" {
		m[key] = map[string]any{} // no arguments ≡ {}
		return
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return
	}
	if v == nil {
		return
	}
	m[key] = clean(v, 0)
}

// geminiOpaque are the Gemini fields whose members are the caller's own
// names (function arguments and results, schema properties), left as
// they are by camelize.
var geminiOpaque = map[string]bool{
	"args": true, "response": true, "properties": true, "parametersJsonSchema": true,
	"responseJsonSchema": true, "default": true, "example": true, "structValue": true,
}

// camelize rewrites snake_case member names to camelCase, as proto3
// JSON reads them, except inside geminiOpaque members.
func camelize(v any, depth int) any {
	if depth > maxDepth {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ck := camel(k)
			if geminiOpaque[ck] {
				out[ck] = e
				continue
			}
			out[ck] = camelize(e, depth+1)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = camelize(e, depth+1)
		}
	}
	return v
}

func camel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b bytes.Buffer
	up := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' && i > 0:
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			up = false
		default:
			b.WriteByte(c)
			up = false
		}
	}
	return b.String()
}
