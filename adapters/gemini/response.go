package gemini

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// generateResponse is a GenerateContentResponse: the whole body of a
// non-streamed call, or one event of a stream. Error is set instead when
// the stream carries a google.rpc.Status.
type generateResponse struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	Error          *rpcStatus      `json:"error"`
}

type candidate struct {
	Content       *responseContent `json:"content"`
	FinishReason  finishReason     `json:"finishReason"`
	FinishMessage string           `json:"finishMessage"`
	Index         int              `json:"index"`
	SafetyRatings []safetyRating   `json:"safetyRatings"`
}

// safetyRating is a candidate's or the prompt's rating in one harm
// category. Ratings are kept in ProviderRaw when a message ends as
// content_filter, to say why.
type safetyRating struct {
	Category    harmCategory    `json:"category"`
	Probability harmProbability `json:"probability"`
	Blocked     bool            `json:"blocked,omitempty"`
}

type responseContent struct {
	Parts []responsePart `json:"parts"`
}

// responsePart is one part of a candidate. Parts the canonical format has
// no block for (model-generated images, code execution) are recognised so
// that they, and their signatures, can be skipped.
type responsePart struct {
	Text                string            `json:"text"`
	Thought             bool              `json:"thought"`
	ThoughtSignature    string            `json:"thoughtSignature"`
	FunctionCall        *responseFunction `json:"functionCall"`
	InlineData          json.RawMessage   `json:"inlineData"`
	FileData            json.RawMessage   `json:"fileData"`
	ExecutableCode      json.RawMessage   `json:"executableCode"`
	CodeExecutionResult json.RawMessage   `json:"codeExecutionResult"`
}

type responseFunction struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Args         json.RawMessage `json:"args"`
	PartialArgs  []partialArg    `json:"partialArgs"`
	WillContinue bool            `json:"willContinue"`
}

type promptFeedback struct {
	BlockReason   blockReason    `json:"blockReason"`
	SafetyRatings []safetyRating `json:"safetyRatings"`
}

type usageMetadata struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
}

// tokenUsage maps Gemini's usage onto canonical counts (see the package
// documentation).
func (u *usageMetadata) tokenUsage() canonical.TokenUsage {
	return canonical.TokenUsage{
		InputTokens:       max(u.PromptTokenCount+u.ToolUsePromptTokenCount-u.CachedContentTokenCount, 0),
		CachedInputTokens: u.CachedContentTokenCount,
		OutputTokens:      u.CandidatesTokenCount + u.ThoughtsTokenCount,
		ReasoningTokens:   u.ThoughtsTokenCount,
	}
}

// decodeBody decodes a non-streamed generateContent body. A JSON array of
// responses (the shape of streamGenerateContent without alt=sse) is
// accepted too.
func decodeBody(body []byte, a *driver.Assembler) error {
	d := newDecoder(a)
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		var list []generateResponse
		if err := json.Unmarshal(body, &list); err != nil {
			return driver.InvalidResponse(d.provider, err, "decoding response body (array of GenerateContentResponse): %v", err)
		}
		for i := range list {
			if err := d.handle(&list[i]); err != nil {
				return err
			}
		}
		return d.finish()
	}
	var r generateResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return driver.InvalidResponse(d.provider, err, "decoding response body (GenerateContentResponse): %v", err)
	}
	if err := d.handle(&r); err != nil {
		return err
	}
	return d.finish()
}

// decoder turns a sequence of GenerateContentResponses into Assembler
// calls. Gemini has no block indexes, so the decoder allocates its own
// keys: one per canonical block, in order, so a block's key is also its
// canonical content index.
type decoder struct {
	a        *driver.Assembler
	provider string

	next      int // key of the next block
	cur       int // key of the current block, -1 before the first
	curKind   canonical.BlockType
	curSigned bool // the current block already has a signature

	raw     providerRaw
	sawCall bool
	pending *pendingCall // a function call that may still continue

	finishReason  string
	finishMessage string
	blockReason   string
	safety        []safetyRating // the last ratings of the prompt or candidate

	usage     canonical.TokenUsage
	haveUsage bool
}

func newDecoder(a *driver.Assembler) *decoder {
	r := a.Response()
	return &decoder{a: a, provider: r.Provider, cur: -1}
}

// handle applies one GenerateContentResponse. It returns the classified
// error when the response is an error status.
func (d *decoder) handle(r *generateResponse) error {
	if r.Error != nil {
		return d.statusError(r.Error)
	}
	d.a.SetServedModel(r.ModelVersion)
	if pf := r.PromptFeedback; pf != nil {
		if pf.BlockReason != "" {
			d.blockReason = string(pf.BlockReason)
		}
		if len(pf.SafetyRatings) > 0 {
			d.safety = pf.SafetyRatings
		}
	}
	for i := range r.Candidates {
		c := &r.Candidates[i]
		if c.Index != 0 {
			continue // only the first candidate is requested
		}
		if c.Content != nil {
			for j := range c.Content.Parts {
				if err := d.part(&c.Content.Parts[j]); err != nil {
					return err
				}
			}
		}
		if c.FinishReason != "" {
			d.finishReason, d.finishMessage = string(c.FinishReason), c.FinishMessage
		}
		if len(c.SafetyRatings) > 0 {
			d.safety = c.SafetyRatings
		}
	}
	if r.UsageMetadata != nil {
		if u := r.UsageMetadata.tokenUsage(); !d.haveUsage || u != d.usage {
			d.usage, d.haveUsage = u, true
			d.a.UsageUpdate(u)
		}
	}
	return nil
}

// part applies one candidate part.
func (d *decoder) part(p *responsePart) error {
	if p.FunctionCall != nil {
		return d.call(p)
	}
	if pc := d.pending; pc != nil {
		if pc.streamed {
			return d.invalid("a part that is not a functionCall arrived while function call %s still continues", pc.name)
		}
		if err := d.endCall(); err != nil {
			return err
		}
	}
	switch {
	case p.InlineData != nil || p.FileData != nil || p.ExecutableCode != nil || p.CodeExecutionResult != nil:
		// Not canonical content; skipped with its signature.
	case p.Thought:
		d.thought(p)
	default:
		d.text(p)
	}
	return nil
}

// open allocates the key of a new block of kind.
func (d *decoder) open(kind canonical.BlockType) {
	d.cur, d.next = d.next, d.next+1
	d.curKind, d.curSigned = kind, false
}

func (d *decoder) text(p *responsePart) {
	sig := p.ThoughtSignature
	if p.Text == "" {
		switch {
		case sig == "":
		case d.curKind == canonical.BlockText && !d.curSigned:
			d.sign(sig)
		default:
			d.raw.Trailing = sig
		}
		return
	}
	if d.curKind != canonical.BlockText || (sig != "" && d.curSigned) {
		d.open(canonical.BlockText)
	}
	d.a.TextDelta(d.cur, p.Text)
	if sig != "" {
		d.sign(sig)
	}
}

func (d *decoder) thought(p *responsePart) {
	sig := p.ThoughtSignature
	if p.Text == "" && sig == "" {
		return
	}
	if d.curKind != canonical.BlockThinking || (sig != "" && d.curSigned) {
		d.open(canonical.BlockThinking)
	}
	if p.Text != "" {
		d.a.ThinkingDelta(d.cur, p.Text)
	}
	if sig != "" {
		d.a.ThinkingSignature(d.cur, sig)
		d.curSigned = true
	}
}

// pendingCall is a function call whose arguments may still be coming:
// one Vertex streams (streamed: willContinue or partialArgs seen), or a
// call that came with a name and nothing else, which ends with no
// arguments unless a nameless continuation follows.
type pendingCall struct {
	key      int
	name     string
	streamed bool
	args     *args           // assembled from partialArgs
	final    json.RawMessage // whole args given on a continuation
}

// call applies a functionCall part: a whole call, the start of a
// streamed one, or a continuation (see partial.go). A part the decoder
// cannot place is an invalid_response error, never an empty call.
func (d *decoder) call(p *responsePart) error {
	fc := p.FunctionCall
	if pc := d.pending; pc != nil {
		switch {
		case fc.Name == "" || pc.streamed && fc.Name == pc.name:
			return d.continueCall(pc, p)
		case pc.streamed:
			return d.invalid("function call %s began while function call %s still continues", fc.Name, pc.name)
		}
		if err := d.endCall(); err != nil {
			return err
		}
	}
	if fc.Name == "" {
		return d.invalid("a functionCall part without a name, and no call it continues")
	}
	args, err := d.wholeArgs(fc)
	if err != nil {
		return err
	}
	d.open(canonical.BlockToolUse)
	key := d.cur
	d.sawCall = true
	// A call without a Gemini id gets a fresh canonical id: see the
	// package documentation.
	d.a.ToolStart(key, fc.ID, fc.Name)
	if p.ThoughtSignature != "" {
		d.sign(p.ThoughtSignature)
	}
	switch {
	case fc.WillContinue || len(fc.PartialArgs) > 0:
		d.pending = &pendingCall{key: key, name: fc.Name, streamed: true, args: newArgs(), final: args}
		return d.continueCall(d.pending, &responsePart{FunctionCall: &responseFunction{PartialArgs: fc.PartialArgs, WillContinue: fc.WillContinue}})
	case args == nil:
		d.pending = &pendingCall{key: key, name: fc.Name}
		return nil
	}
	// The whole input as one fragment. It fails only when the consumer
	// stopped before the block opened, which the stream loop checks.
	_, _ = d.a.ToolInputDelta(key, string(args))
	d.a.ToolInputFinalChecked(key, args) // a JSON object, checked as it was decoded (wholeArgs), and this call's own
	d.a.EndBlock(key)
	return nil
}

// wholeArgs returns a functionCall's args: nil when absent or null, the
// JSON object otherwise; anything else is invalid.
func (d *decoder) wholeArgs(fc *responseFunction) (json.RawMessage, error) {
	args := bytes.TrimSpace(fc.Args)
	if len(args) == 0 || string(args) == "null" {
		return nil, nil
	}
	if args[0] != '{' {
		return nil, d.invalid("functionCall %s: args is not a JSON object", fc.Name)
	}
	return args, nil
}

// continueCall applies a continuation of pc: its partialArgs, each
// becoming a tool.use_input_delta, and its end when willContinue is off.
func (d *decoder) continueCall(pc *pendingCall, p *responsePart) error {
	fc := p.FunctionCall
	pc.streamed = true
	if pc.args == nil {
		pc.args = newArgs()
	}
	args, err := d.wholeArgs(fc)
	if err != nil {
		return err
	}
	if args != nil {
		pc.final = args
	}
	for i := range fc.PartialArgs {
		frag, err := pc.args.apply(&fc.PartialArgs[i])
		if err != nil {
			return d.invalid("function call %s: %v", pc.name, err)
		}
		if frag != "" {
			_, _ = d.a.ToolInputDelta(pc.key, frag)
		}
	}
	if p.ThoughtSignature != "" {
		d.sign(p.ThoughtSignature)
	}
	if !fc.WillContinue {
		return d.endCall()
	}
	return nil
}

// endCall ends the pending call: with the input its partialArgs built (or
// whole args given on a continuation), or {} for a call that came with a
// name only.
func (d *decoder) endCall() error {
	pc := d.pending
	d.pending = nil
	input := json.RawMessage("{}")
	if pc.args != nil {
		frag, built, err := pc.args.finish()
		if err != nil {
			return d.invalid("function call %s: %v", pc.name, err)
		}
		input = built
		if frag != "" {
			_, _ = d.a.ToolInputDelta(pc.key, frag)
		}
	} else {
		_, _ = d.a.ToolInputDelta(pc.key, "{}")
	}
	if pc.final != nil {
		input = pc.final
	}
	d.a.ToolInputFinal(pc.key, input)
	d.a.EndBlock(pc.key)
	return nil
}

func (d *decoder) invalid(format string, args ...any) error {
	return driver.InvalidResponse(d.provider, nil, format, args...)
}

// sign records a signature for the current text or tool block.
func (d *decoder) sign(sig string) {
	if d.raw.Signatures == nil {
		d.raw.Signatures = map[string]string{}
	}
	d.raw.Signatures[strconv.Itoa(d.cur)] = sig
	d.curSigned = true
}

// finish ends the response at the end of the body: it completes the
// message when a finish reason (or a prompt block) was seen, returns the
// error a failing finish reason stands for, and returns nil without
// finishing otherwise, so the runtime reports a truncated stream.
func (d *decoder) finish() error {
	if pc := d.pending; pc != nil && (d.finishReason != "" || d.blockReason != "") {
		if pc.streamed {
			return d.invalid("the response ended while function call %s still continues", pc.name)
		}
		if err := d.endCall(); err != nil {
			return err
		}
	}
	var (
		stop         canonical.StopReason
		providerStop string
	)
	switch {
	case d.finishReason != "":
		var err error
		if stop, err = d.stopReason(); err != nil {
			return err
		}
		providerStop = d.finishReason
	case d.blockReason != "":
		stop, providerStop = canonical.StopContentFilter, d.blockReason
	default:
		return nil
	}
	if stop == canonical.StopContentFilter {
		d.raw.SafetyRatings = d.safety
	}
	if !d.raw.empty() {
		raw, err := json.Marshal(d.raw)
		if err == nil {
			d.a.SetProviderRaw(raw)
		}
	}
	d.a.Finish(stop, providerStop)
	return nil
}

// stopReason maps the finish reason (see the package documentation).
func (d *decoder) stopReason() (canonical.StopReason, error) {
	switch d.finishReason {
	case "STOP":
		if d.sawCall {
			return canonical.StopToolUse, nil
		}
		return canonical.StopEndTurn, nil
	case "MAX_TOKENS":
		return canonical.StopMaxTokens, nil
	case "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return canonical.StopContentFilter, nil
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS":
		return "", d.finishError(canonical.ErrServer, canonical.CodeMalformedToolCall)
	}
	return "", d.finishError(canonical.ErrOther, canonical.CodeUnknownFinishReason)
}

func (d *decoder) finishError(class canonical.ErrorClass, code string) *canonical.AdapterError {
	msg := "generation stopped with finish reason " + d.finishReason
	if d.finishMessage != "" {
		msg += ": " + d.finishMessage
	}
	ae := canonical.NewError(class, code, "%s", msg)
	ae.Provider = d.provider
	return ae
}

// statusError classifies an error status that arrived in a 2xx body.
func (d *decoder) statusError(s *rpcStatus) *canonical.AdapterError {
	ae := classifyStatus(s.Code, s)
	ae.Status = s.Code
	ae.Provider = d.provider
	return ae
}
