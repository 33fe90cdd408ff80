// Package fantasyshim is the thinnest adapters.Adapter over
// charm.land/fantasy: canonical requests become a fantasy.Call for the
// library's own provider (anthropic, openai — Responses or Chat as the
// model's dialect says — or google for Gemini), and the library's
// Response or StreamParts become canonical responses and events through
// metis's driver.Assembler. The library's HTTP goes through the harness's
// client. Nothing here corrects what fantasy sends or reads.
package fantasyshim

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"

	"charm.land/fantasy"
	fanthropic "charm.land/fantasy/providers/anthropic"
	fgoogle "charm.land/fantasy/providers/google"
	fopenai "charm.land/fantasy/providers/openai"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/gemini"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/thirdparty/internal/shim"
)

// Version is the fantasy release this shim is built and certified with.
const Version = "v0.41.2"

// Adapter wraps one fantasy provider as an adapters.Adapter.
type Adapter struct {
	*shim.Base
	kind     string // "anthropic", "openai" or "gemini": the wire
	provider fantasy.Provider
	classify shim.Classifier
}

// New builds the adapter for cfg.Type "anthropic", "openai" or "gemini".
func New(cfg adapters.Config) (*Adapter, error) {
	a := &Adapter{Base: shim.NewBase(cfg), kind: cfg.Type}
	var err error
	switch cfg.Type {
	case "anthropic":
		opts := []fanthropic.Option{fanthropic.WithAPIKey(cfg.APIKey), fanthropic.WithHTTPClient(a.HTTP)}
		if cfg.BaseURL != "" {
			opts = append(opts, fanthropic.WithBaseURL(cfg.BaseURL))
		}
		if len(cfg.ExtraHeaders) > 0 {
			opts = append(opts, fanthropic.WithHeaders(cfg.ExtraHeaders))
		}
		a.provider, err = fanthropic.New(opts...)
		a.classify = anthropic.Classify
	case "openai":
		opts := []fopenai.Option{fopenai.WithAPIKey(cfg.APIKey), fopenai.WithHTTPClient(a.HTTP),
			fopenai.WithUseResponsesAPI(), fopenai.WithResponsesAPIFunc(func(model string) bool { return a.dialect(model) != "chat" })}
		if cfg.BaseURL != "" {
			// fantasy's base URL is the OpenAI SDK's, which includes /v1.
			opts = append(opts, fopenai.WithBaseURL(strings.TrimSuffix(cfg.BaseURL, "/")+"/v1"))
		}
		if len(cfg.ExtraHeaders) > 0 {
			opts = append(opts, fopenai.WithHeaders(cfg.ExtraHeaders))
		}
		// metis's openai adapter options organization and project: the
		// OpenAI-Organization and OpenAI-Project headers.
		if org, _ := cfg.Options["organization"].(string); org != "" {
			opts = append(opts, fopenai.WithOrganization(org))
		}
		if project, _ := cfg.Options["project"].(string); project != "" {
			opts = append(opts, fopenai.WithProject(project))
		}
		a.provider, err = fopenai.New(opts...)
		a.classify = openai.ClassifyChat
	case "gemini":
		opts := []fgoogle.Option{fgoogle.WithGeminiAPIKey(cfg.APIKey), fgoogle.WithHTTPClient(a.HTTP)}
		if cfg.BaseURL != "" {
			opts = append(opts, fgoogle.WithBaseURL(cfg.BaseURL))
		}
		if len(cfg.ExtraHeaders) > 0 {
			opts = append(opts, fgoogle.WithHeaders(cfg.ExtraHeaders))
		}
		a.provider, err = fgoogle.New(opts...)
		a.classify = gemini.Classify
	default:
		return nil, fmt.Errorf("fantasyshim: adapter type %q: fantasy's providers are anthropic, openai and gemini here", cfg.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("fantasyshim: %s: %w", cfg.Type, err)
	}
	return a, nil
}

// dialect returns the OpenAI dialect of the model whose wire name is
// model: "chat" or "responses".
func (a *Adapter) dialect(wire string) string {
	for id := range a.Cfg.Models {
		m := a.Cfg.Model(id)
		if m.WireName == wire {
			if d, ok := m.Options["dialect"].(string); ok {
				return d
			}
		}
	}
	return "responses"
}

// Capabilities declares what the shim maps through fantasy.
func (a *Adapter) Capabilities(model string) canonical.Capabilities {
	c := canonical.Capabilities{
		SupportsImages: true, SupportsTools: true, SupportsSystemPrompt: true,
		SupportsStreaming: true, SupportsStreamingToolCalls: true, SupportsParallelToolCalls: true,
		MaxContextTokens: 128000, MaxOutputTokens: 32000,
	}
	switch a.kind {
	case "anthropic":
		c.SupportsThinking = true
		c.MaxContextTokens, c.MaxOutputTokens = 200000, 64000
	case "gemini":
		c.SupportsThinking = true
		c.MaxContextTokens, c.MaxOutputTokens = 1048576, 65536
	}
	c.AcceptedImageMediaTypes = append([]string(nil), imageTypes[a.kind]...)
	return c
}

// imageTypes are the image media types each provider's API documents
// (Anthropic's and OpenAI's vision guides; Gemini's image understanding
// page): an image of another type is refused before the wire.
var imageTypes = map[string][]string{
	"anthropic": {"image/jpeg", "image/png", "image/gif", "image/webp"},
	"openai":    {"image/png", "image/jpeg", "image/gif", "image/webp"},
	"gemini":    {"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"},
}

// Complete makes a non-streaming call with LanguageModel.Generate.
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	ctx, sc := a.Begin(ctx, req, false)
	defer sc.End()
	return sc.Result(a.complete(ctx, sc, req))
}

func (a *Adapter) complete(ctx context.Context, sc *shim.Call, req *canonical.Request) (*canonical.Response, error) {
	model, call, err := a.prepare(ctx, sc, req, false)
	if err != nil {
		return nil, err
	}
	resp, err := model.Generate(ctx, call)
	if err != nil {
		return nil, a.failure(ctx, err)
	}
	asm := sc.Assembler(nil, req, a.ToolIDs(req))
	for i, c := range resp.Content {
		switch c.GetType() {
		case fantasy.ContentTypeText:
			if t, ok := fantasy.AsContentType[fantasy.TextContent](c); ok {
				asm.TextDelta(i, t.Text)
			}
		case fantasy.ContentTypeReasoning:
			if r, ok := fantasy.AsContentType[fantasy.ReasoningContent](c); ok {
				a.reasoning(asm, i, r.Text, r.ProviderMetadata)
			}
		case fantasy.ContentTypeToolCall:
			if t, ok := fantasy.AsContentType[fantasy.ToolCallContent](c); ok {
				asm.ToolStart(i, t.ToolCallID, t.ToolName)
				// The arguments as fantasy read them, so that arguments
				// that are not a JSON object are told apart from an
				// object missing a property.
				_, _ = asm.ToolInputDelta(i, t.Input)
				asm.ToolInputFinal(i, json.RawMessage(t.Input))
			}
		}
		asm.EndBlock(i)
	}
	asm.SetUsage(usage(resp.Usage))
	out := asm.Finish(stopReason(resp.FinishReason), string(resp.FinishReason))
	return out, nil
}

// Stream makes a streaming call with LanguageModel.Stream.
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		ctx, sc := a.Begin(ctx, req, true)
		defer sc.End()
		yield = sc.Watch(yield)
		model, call, err := a.prepare(ctx, sc, req, true)
		if err != nil {
			yield(canonical.StreamEvent{}, err)
			return
		}
		parts, err := model.Stream(ctx, call)
		if err != nil {
			yield(canonical.StreamEvent{}, a.failure(ctx, err))
			return
		}
		asm := sc.Assembler(yield, req, a.ToolIDs(req))
		st := newStream(asm, a.Name())
		for p := range parts {
			if asm.Stopped() {
				break
			}
			if ctx.Err() != nil {
				// Cancelled: what fantasy still has in hand is not
				// delivered; the message ends as cancelled.
				a.fail(ctx, asm, yield, ctx.Err())
				return
			}
			if p.Type == fantasy.StreamPartTypeError {
				a.fail(ctx, asm, yield, p.Error)
				return
			}
			if err := st.part(a, p); err != nil {
				asm.Fail(ctx, err)
				return
			}
		}
		if asm.Finished() || asm.Stopped() && ctx.Err() == nil {
			return
		}
		if ctx.Err() != nil {
			a.fail(ctx, asm, yield, ctx.Err())
			return
		}
		// fantasy ended the stream without a finish part.
		a.fail(ctx, asm, yield, nil)
	}
}

// fail ends a stream after err: alone before the first event, else after
// message.complete with stop reason error (or cancelled).
func (a *Adapter) fail(ctx context.Context, asm *driver.Assembler, yield func(canonical.StreamEvent, error) bool, err error) {
	if !asm.Started() {
		yield(canonical.StreamEvent{}, a.failure(ctx, err))
		return
	}
	if err == nil {
		asm.Fail(ctx, nil)
		return
	}
	asm.Fail(ctx, a.failure(ctx, err))
}

// failure maps an error fantasy returned to a canonical error, from what
// fantasy reports: a ProviderError with the HTTP status, headers and body
// (the provider's error JSON as the SDK kept it), a mid-stream error
// event (no status; TransientError set for a temporary condition), a
// transport failure (a *url.Error, or fantasy's "stream transport
// error"), or — any other error — a body the SDK could not decode.
func (a *Adapter) failure(ctx context.Context, err error) *canonical.AdapterError {
	if ctx.Err() != nil || err == nil {
		return shim.Failure(ctx, a.Name(), err)
	}
	var (
		pe *fantasy.ProviderError
		ue *url.Error
	)
	if errors.As(err, &ue) {
		return shim.Failure(ctx, a.Name(), err)
	}
	if !errors.As(err, &pe) {
		return driver.InvalidResponse(a.Name(), err, "fantasy: %v", err)
	}
	if pe.StatusCode >= 400 {
		ae := shim.HTTPFailure(a.Name(), a.classify, pe.StatusCode, pe.ResponseHeaders, errorBody(pe), err)
		if pe.ContextTooLargeErr {
			ae.Class, ae.Retryable = canonical.ErrContextOverflow, false
		}
		ae.Attempts = shim.Attempts(ctx)
		return ae
	}
	if pe.Title == "stream transport error" {
		return shim.Failure(ctx, a.Name(), pe.Cause)
	}
	class := canonical.ErrOther
	if pe.TransientError {
		class = canonical.ErrServer
	}
	ae := canonical.NewError(class, "", "%s: %s", pe.Title, pe.Message)
	ae.Provider, ae.Err, ae.Retryable = a.Name(), err, pe.TransientError
	return ae
}

// errorBody returns the provider's error body from what fantasy kept: the
// SDK error's raw JSON when the cause has one (fantasy's ResponseBody is
// then a dump of the whole HTTP response, whose body the SDK already
// read), else ResponseBody.
func errorBody(pe *fantasy.ProviderError) []byte {
	var raw interface{ RawJSON() string }
	if errors.As(pe.Cause, &raw) && raw.RawJSON() != "" {
		return []byte(raw.RawJSON())
	}
	return pe.ResponseBody
}

// reasoning feeds a thinking delta and the signature fantasy keeps in
// the part's provider metadata.
func (a *Adapter) reasoning(asm *driver.Assembler, k int, text string, md fantasy.ProviderMetadata) {
	if text != "" {
		asm.ThinkingDelta(k, text)
	}
	switch m := md[fanthropic.Name].(type) {
	case *fanthropic.ReasoningOptionMetadata:
		if m.RedactedData != "" {
			asm.RedactedThinking(k, m.RedactedData)
		} else if m.Signature != "" {
			asm.ThinkingSignature(k, m.Signature)
		}
	}
	// fantasy keeps a Gemini thought signature as the bytes its SDK
	// decoded from the wire's base64 (Part.ThoughtSignature is []byte);
	// the canonical signature is the provider's token as on the wire
	// (001 §4.2), which also keeps binary signatures, invalid UTF-8,
	// intact through encoding/json.
	if m, ok := md[fgoogle.Name].(*fgoogle.ReasoningMetadata); ok && m.Signature != "" {
		asm.ThinkingSignature(k, base64.StdEncoding.EncodeToString([]byte(m.Signature)))
	}
	// The Responses reasoning item's encrypted_content is the canonical
	// signature (docs/canonical.md, "Opaque provider tokens"); its item
	// id would be metis's provider_raw, which is no part of the contract.
	if m, ok := md[fopenai.Name].(*fopenai.ResponsesReasoningMetadata); ok && m.EncryptedContent != nil && *m.EncryptedContent != "" {
		asm.ThinkingSignature(k, *m.EncryptedContent)
	}
}

// prepare opens the language model and builds the call.
func (a *Adapter) prepare(ctx context.Context, sc *shim.Call, req *canonical.Request, stream bool) (fantasy.LanguageModel, fantasy.Call, error) {
	req, err := sc.SkipUnknown(req)
	if err != nil {
		return nil, fantasy.Call{}, err
	}
	if err := canonical.ValidateHistory(req.Messages, req.Tools); err != nil {
		return nil, fantasy.Call{}, err
	}
	if err := driver.CheckCapabilities(a.Name(), req, a.Capabilities(req.Model), stream); err != nil {
		return nil, fantasy.Call{}, err
	}
	wire := a.Cfg.Model(req.Model).WireName
	model, err := a.provider.LanguageModel(ctx, wire)
	if err != nil {
		return nil, fantasy.Call{}, a.failure(ctx, err)
	}
	call, err := a.call(sc, req)
	return model, call, err
}

// call maps a canonical request to a fantasy.Call.
func (a *Adapter) call(sc *shim.Call, req *canonical.Request) (fantasy.Call, error) {
	ids := a.ToolIDs(req)
	var c fantasy.Call
	if req.SystemPrompt != "" {
		c.Prompt = append(c.Prompt, fantasy.NewSystemMessage(req.SystemPrompt))
	}
	for i := range req.Messages {
		msgs, err := a.messages(sc, &req.Messages[i], ids)
		var ae *canonical.AdapterError
		if errors.As(err, &ae) {
			return c, ae
		}
		if err != nil {
			return c, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeUnsupportedContent, "messages[%d]: %v", i, err)
		}
		for _, msg := range msgs {
			// One step's results in one tool message, as fantasy's own
			// Agent builds the history (agent.go, toResponseMessages):
			// consecutive canonical TOOL messages, one result each
			// (001 §5.1), are one fantasy tool message.
			if n := len(c.Prompt); n > 0 && msg.Role == fantasy.MessageRoleTool && c.Prompt[n-1].Role == fantasy.MessageRoleTool {
				c.Prompt[n-1].Content = append(c.Prompt[n-1].Content, msg.Content...)
				continue
			}
			c.Prompt = append(c.Prompt, msg)
		}
	}
	for _, t := range req.Tools {
		var schema map[string]any
		if len(t.InputSchema) > 0 {
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
				return c, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeInvalidToolSchema, "tool %s: %v", t.Name, err)
			}
		}
		c.Tools = append(c.Tools, fantasy.FunctionTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if tc := req.ToolChoice; tc != nil {
		var choice fantasy.ToolChoice
		switch tc.Mode {
		case canonical.ToolChoiceAuto:
			choice = fantasy.ToolChoiceAuto
		case canonical.ToolChoiceAny:
			choice = fantasy.ToolChoiceRequired
		case canonical.ToolChoiceNone:
			choice = fantasy.ToolChoiceNone
		case canonical.ToolChoiceTool:
			choice = fantasy.SpecificToolChoice(tc.Name)
		}
		c.ToolChoice = &choice
	}
	if req.MaxOutputTokens > 0 {
		n := int64(req.MaxOutputTokens)
		c.MaxOutputTokens = &n
	}
	c.Temperature, c.TopP = req.Temperature, req.TopP
	// fantasy.Call has no stop sequences and no seed: they cannot be sent.
	if th := req.Thinking; th != nil {
		switch a.kind {
		case "anthropic":
			opts := &fanthropic.ProviderOptions{}
			if th.BudgetTokens > 0 {
				opts.Thinking = &fanthropic.ThinkingProviderOption{BudgetTokens: int64(th.BudgetTokens)}
			}
			if th.Effort != "" {
				effort := fanthropic.Effort(th.Effort)
				opts.Effort = &effort
			}
			c.ProviderOptions = fantasy.ProviderOptions{fanthropic.Name: opts}
		case "gemini":
			budget, include := int64(th.BudgetTokens), true
			if budget == 0 {
				// fantasy's Gemini options take a budget (ThinkingLevel is
				// for Gemini 3 only), so an effort becomes the budget
				// Google's OpenAI compatibility layer gives it.
				budget = geminiEffortBudget[th.Effort]
			}
			tc := &fgoogle.ThinkingConfig{IncludeThoughts: &include}
			if budget > 0 {
				tc.ThinkingBudget = &budget
			}
			c.ProviderOptions = fantasy.ProviderOptions{fgoogle.Name: &fgoogle.ProviderOptions{ThinkingConfig: tc}}
		}
	}
	return c, nil
}

// geminiEffortBudget is the thinking budget of each reasoning effort on
// Gemini 2.5, as Google's OpenAI compatibility documentation maps
// reasoning_effort (https://ai.google.dev/gemini-api/docs/openai#thinking).
var geminiEffortBudget = map[string]int64{"low": 1024, "medium": 8192, "high": 24576}

// messages maps one canonical message to fantasy's: a user turn's tool
// results go in a tool message before its other parts.
func (a *Adapter) messages(sc *shim.Call, m *canonical.Message, ids canonical.ToolIDMap) ([]fantasy.Message, error) {
	var parts, results []fantasy.MessagePart
	for _, b := range m.Content {
		switch b := b.(type) {
		case canonical.TextBlock:
			parts = append(parts, fantasy.TextPart{Text: b.Text})
		case canonical.ImageBlock:
			if b.Source.Kind != canonical.ImageBase64 {
				return nil, fmt.Errorf("an image by %s: fantasy's FilePart carries bytes only", b.Source.Kind)
			}
			data, err := base64.StdEncoding.DecodeString(b.Source.Data)
			if err != nil {
				return nil, fmt.Errorf("image data: %w", err)
			}
			parts = append(parts, fantasy.FilePart{Data: data, MediaType: b.MediaType})
		case canonical.ThinkingBlock, canonical.RedactedThinkingBlock:
			part, reason := a.reasoningPart(m, b)
			if reason != "" {
				if err := sc.Drop(m, b.Type(), reason); err != nil {
					return nil, err
				}
				continue
			}
			parts = append(parts, part)
		case canonical.ToolUseBlock:
			parts = append(parts, fantasy.ToolCallPart{ToolCallID: ids.Wire(a.Name(), b.ID), ToolName: b.Name, Input: string(b.Input)})
		case canonical.ToolResultBlock:
			out, err := a.toolResult(sc, m, b)
			if err != nil {
				return nil, err
			}
			results = append(results, fantasy.ToolResultPart{ToolCallID: ids.Wire(a.Name(), b.ToolUseID), Output: out})
		default:
			return nil, fmt.Errorf("a %s block", b.Type())
		}
	}
	var out []fantasy.Message
	if len(results) > 0 {
		out = append(out, fantasy.Message{Role: fantasy.MessageRoleTool, Content: results})
	}
	if len(parts) > 0 {
		role := fantasy.MessageRoleUser
		switch m.Role {
		case canonical.RoleAssistant:
			role = fantasy.MessageRoleAssistant
		case canonical.RoleSystem:
			role = fantasy.MessageRoleSystem
		}
		out = append(out, fantasy.Message{Role: role, Content: parts})
	}
	return out, nil
}

// toolResult maps a tool result's content to fantasy's output: its text,
// or the error text; with an image, on Anthropic — whose tool_result
// takes images, and where fantasy sends ToolResultOutputContentMedia
// inside it — the image and the text (fantasy's media output holds one
// image). Where the tool result is text only on the wire (OpenAI's
// function output, Gemini's functionResponse: 001 §7.3, 003 §10.1.3),
// and for a second image, the image is dropped with the lossy WARN.
func (a *Adapter) toolResult(sc *shim.Call, m *canonical.Message, b canonical.ToolResultBlock) (fantasy.ToolResultOutputContent, error) {
	var text strings.Builder
	var media *fantasy.ToolResultOutputContentMedia
	for _, c := range b.Content {
		switch c := c.(type) {
		case canonical.TextBlock:
			text.WriteString(c.Text)
		case canonical.ImageBlock:
			reason := "a tool result's image: " + a.kind + "'s tool output is text only"
			switch {
			case a.kind != "anthropic":
			case b.IsError:
				reason = "an error tool result's image: fantasy's error output is text only"
			case c.Source.Kind != canonical.ImageBase64:
				reason = "a tool result's image by " + string(c.Source.Kind) + ": fantasy's media output carries base64 data only"
			case media != nil:
				reason = "a tool result's second image: fantasy's media output holds one"
			default:
				media = &fantasy.ToolResultOutputContentMedia{Data: c.Source.Data, MediaType: c.MediaType}
				continue
			}
			if err := sc.Drop(m, canonical.BlockImage, reason); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case b.IsError:
		return fantasy.ToolResultOutputContentError{Error: errors.New(text.String())}, nil
	case media != nil:
		media.Text = text.String()
		return *media, nil
	}
	return fantasy.ToolResultOutputContentText{Text: text.String()}, nil
}

// reasoningPart maps a thinking or redacted thinking block b of message
// m to fantasy's ReasoningPart, its signature (or redacted data) in the
// provider options fantasy reads it from; or, when the block cannot go
// back, gives the reason it is dropped. Only thinking this adapter's
// provider made goes back: another provider's thinking cannot be
// verified by this one, and its signature is not this provider's token
// (000 §4.3, 001 §7.3), as metis's own adapters drop it.
func (a *Adapter) reasoningPart(m *canonical.Message, b canonical.Block) (fantasy.ReasoningPart, string) {
	var text, sig, redacted string
	switch b := b.(type) {
	case canonical.ThinkingBlock:
		text, sig = b.Text, b.Signature
	case canonical.RedactedThinkingBlock:
		redacted = b.Data
	}
	if m.Metadata.Provider != a.Name() {
		from := "an unknown provider"
		if m.Metadata.Provider != "" {
			from = fmt.Sprintf("provider %q", m.Metadata.Provider)
		}
		return fantasy.ReasoningPart{}, fmt.Sprintf("%s from %s cannot be verified by %s", b.Type(), from, a.kind)
	}
	opts, reason := a.signature(sig, redacted)
	return fantasy.ReasoningPart{Text: text, ProviderOptions: opts}, reason
}

// signature carries a thinking block's signature (or redacted data) of
// this adapter's provider in the provider options fantasy reads it from,
// or gives the reason it cannot.
func (a *Adapter) signature(sig, redacted string) (fantasy.ProviderOptions, string) {
	switch a.kind {
	case "anthropic":
		return fantasy.ProviderOptions{fanthropic.Name: &fanthropic.ReasoningOptionMetadata{Signature: sig, RedactedData: redacted}}, ""
	case "gemini":
		if sig == "" {
			return nil, ""
		}
		// The wire's base64, decoded to the bytes fantasy's SDK encodes
		// again: a token that is not base64 has no bytes that would
		// reach the wire as it came.
		raw, err := base64.StdEncoding.DecodeString(sig)
		if err != nil {
			return nil, "a thought signature that is not base64 cannot go back through fantasy, whose signature is bytes sent base64-encoded"
		}
		return fantasy.ProviderOptions{fgoogle.Name: &fgoogle.ReasoningMetadata{Signature: string(raw)}}, ""
	case "openai":
		// The Responses reasoning item's encrypted_content, where
		// fantasy's Responses model reads a ReasoningPart's reasoning.
		if sig != "" {
			return fantasy.ProviderOptions{fopenai.Name: &fopenai.ResponsesReasoningMetadata{EncryptedContent: &sig}}, ""
		}
	}
	return nil, ""
}

func usage(u fantasy.Usage) canonical.TokenUsage {
	return canonical.TokenUsage{
		InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens),
		CachedInputTokens: int(u.CacheReadTokens), CacheCreationInputTokens: int(u.CacheCreationTokens),
		ReasoningTokens: int(u.ReasoningTokens),
	}
}

func stopReason(r fantasy.FinishReason) canonical.StopReason {
	switch r {
	case fantasy.FinishReasonLength:
		return canonical.StopMaxTokens
	case fantasy.FinishReasonToolCalls:
		return canonical.StopToolUse
	case fantasy.FinishReasonContentFilter:
		return canonical.StopContentFilter
	case fantasy.FinishReasonError:
		return canonical.StopError
	}
	return canonical.StopEndTurn
}
