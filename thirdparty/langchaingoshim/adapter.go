// Package langchaingoshim is the thinnest adapters.Adapter over
// github.com/tmc/langchaingo's llms.Model: canonical requests become
// []llms.MessageContent and call options for the library's anthropic or
// openai (Chat Completions) model, and its ContentResponse — or, when
// streaming, the text chunks its streaming function receives followed by
// the response's tool calls — become canonical responses and events
// through metis's driver.Assembler. The library's HTTP goes through the
// harness's client. Nothing here corrects what langchaingo sends or reads.
package langchaingoshim

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"
	lanthropic "github.com/tmc/langchaingo/llms/anthropic"
	lopenai "github.com/tmc/langchaingo/llms/openai"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/thirdparty/internal/shim"
)

// Version is the langchaingo release this shim is built and certified with.
const Version = "v0.1.14"

// Adapter wraps one langchaingo model as an adapters.Adapter.
type Adapter struct {
	*shim.Base
	kind string // "anthropic" or "openai"
}

// New builds the adapter for cfg.Type "anthropic" or "openai" (Chat
// Completions: langchaingo has no Responses API).
func New(cfg adapters.Config) (*Adapter, error) {
	switch cfg.Type {
	case "anthropic", "openai":
	default:
		return nil, fmt.Errorf("langchaingoshim: adapter type %q: langchaingo's models here are anthropic and openai", cfg.Type)
	}
	a := &Adapter{Base: shim.NewBase(cfg), kind: cfg.Type}
	// langchaingo has no option for Config.ExtraHeaders, nor for OpenAI's
	// project (OpenAI-Project): a langchaingo user who needs them wraps
	// the transport of the client the library is given, as here.
	set := map[string]string{}
	if project, _ := cfg.Options["project"].(string); project != "" && cfg.Type == "openai" {
		set[http.CanonicalHeaderKey("OpenAI-Project")] = project
	}
	for k, v := range cfg.ExtraHeaders {
		set[http.CanonicalHeaderKey(k)] = v
	}
	if len(set) > 0 {
		client := *a.HTTP
		client.Transport = &headerTransport{next: client.Transport, set: set}
		a.HTTP = &client
	}
	return a, nil
}

// headerTransport sets headers on every request the library sends: the
// Config's extra headers (which win, as they do in metis's adapters) and
// OpenAI's project.
type headerTransport struct {
	next http.RoundTripper
	set  map[string]string
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.set {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}

// model opens langchaingo's model for the canonical model id.
func (a *Adapter) model(id string) (llms.Model, error) {
	wire := a.Cfg.Model(id).WireName
	switch a.kind {
	case "anthropic":
		opts := []lanthropic.Option{lanthropic.WithToken(a.Cfg.APIKey), lanthropic.WithModel(wire), lanthropic.WithHTTPClient(a.HTTP)}
		if a.Cfg.BaseURL != "" {
			opts = append(opts, lanthropic.WithBaseURL(strings.TrimSuffix(a.Cfg.BaseURL, "/")+"/v1"))
		}
		return lanthropic.New(opts...)
	default:
		opts := []lopenai.Option{lopenai.WithToken(a.Cfg.APIKey), lopenai.WithModel(wire), lopenai.WithHTTPClient(a.HTTP)}
		// metis's openai adapter option organization (the project header
		// is set by the transport New wraps: langchaingo has no option).
		if org, _ := a.Cfg.Options["organization"].(string); org != "" {
			opts = append(opts, lopenai.WithOrganization(org))
		}
		if a.Cfg.BaseURL != "" {
			opts = append(opts, lopenai.WithBaseURL(strings.TrimSuffix(a.Cfg.BaseURL, "/")+"/v1"))
		}
		return lopenai.New(opts...)
	}
}

// Capabilities declares what the shim maps through langchaingo.
func (a *Adapter) Capabilities(model string) canonical.Capabilities {
	c := canonical.Capabilities{
		SupportsImages: true, SupportsTools: true, SupportsSystemPrompt: true,
		SupportsStreaming: true, SupportsParallelToolCalls: true,
		MaxContextTokens: 128000, MaxOutputTokens: 32000,
	}
	if a.kind == "anthropic" {
		c.MaxContextTokens, c.MaxOutputTokens = 200000, 64000
	}
	c.AcceptedImageMediaTypes = append([]string(nil), imageTypes[a.kind]...)
	return c
}

// imageTypes are the image media types each provider's API documents
// (Anthropic's and OpenAI's vision guides): an image of another type is
// refused before the wire.
var imageTypes = map[string][]string{
	"anthropic": {"image/jpeg", "image/png", "image/gif", "image/webp"},
	"openai":    {"image/png", "image/jpeg", "image/gif", "image/webp"},
}

// Complete makes a non-streaming call with GenerateContent.
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	ctx, sc := a.Begin(ctx, req, false)
	defer sc.End()
	resp, err := a.generate(ctx, sc, req, nil)
	if err != nil {
		return sc.Result(nil, err)
	}
	asm := sc.Assembler(nil, req, a.ToolIDs(req))
	return sc.Result(a.finish(asm, resp, 0), nil)
}

// Stream makes a streaming call: GenerateContent with a streaming
// function, whose chunks are text deltas; the tool calls and the stop
// reason come with the response when the call returns.
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		ctx, sc := a.Begin(ctx, req, true)
		defer sc.End()
		yield = sc.Watch(yield)
		asm := sc.Assembler(yield, req, a.ToolIDs(req))
		errStopped := errors.New("the consumer stopped reading")
		onChunk := func(_ context.Context, chunk []byte) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if len(chunk) > 0 && !asm.TextDelta(0, string(chunk)) {
				return errStopped
			}
			return nil
		}
		resp, err := a.generate(ctx, sc, req, onChunk)
		switch {
		case asm.Stopped() && ctx.Err() == nil:
			return
		case ctx.Err() == context.Canceled:
			if !asm.Started() {
				yield(canonical.StreamEvent{}, shim.Failure(ctx, a.Name(), ctx.Err()))
				return
			}
			asm.Fail(ctx, ctx.Err())
			return
		case err != nil:
			if !asm.Started() {
				yield(canonical.StreamEvent{}, err)
				return
			}
			asm.Fail(ctx, err)
			return
		}
		if ctx.Err() != nil {
			asm.Fail(ctx, ctx.Err())
			return
		}
		asm.EndBlock(0)
		a.finish(asm, resp, 1)
	}
}

// finish feeds the response's choices to asm and finishes it; text
// choices already streamed (key 0) are not fed again.
func (a *Adapter) finish(asm *driver.Assembler, resp *llms.ContentResponse, first int) *canonical.Response {
	var stop string
	var u canonical.TokenUsage
	k := first
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		if ch.StopReason != "" {
			stop = ch.StopReason
		}
		u = usage(ch.GenerationInfo, u)
		if first == 0 {
			if th, _ := ch.GenerationInfo["ThinkingContent"].(string); th != "" && ch.Content == "" && len(ch.ToolCalls) == 0 {
				asm.ThinkingDelta(k, th)
				if sig, _ := ch.GenerationInfo["ThinkingSignature"].(string); sig != "" {
					asm.ThinkingSignature(k, sig)
				}
				asm.EndBlock(k)
				k++
			}
			if ch.Content != "" {
				asm.TextDelta(k, ch.Content)
				asm.EndBlock(k)
				k++
			}
		}
		for _, tc := range ch.ToolCalls {
			name, args := "", ""
			if tc.FunctionCall != nil {
				name, args = tc.FunctionCall.Name, tc.FunctionCall.Arguments
			}
			asm.ToolStart(k, tc.ID, name)
			// The call comes whole: its arguments stream as one fragment
			// (a call without arguments, none), langchaingo's string as
			// it is.
			if in := strings.TrimSpace(args); in != "" && in != "{}" {
				_, _ = asm.ToolInputDelta(k, args)
			}
			asm.ToolInputFinal(k, []byte(args))
			asm.EndBlock(k)
			k++
		}
	}
	asm.SetUsage(u)
	return asm.Finish(stopReason(stop), stop)
}

// usage reads the token counts langchaingo puts in GenerationInfo; a
// later choice's counts replace an earlier one's (each choice carries the
// message's usage).
func usage(info map[string]any, u canonical.TokenUsage) canonical.TokenUsage {
	n := func(key string) (int, bool) {
		switch v := info[key].(type) {
		case int:
			return v, true
		case int64:
			return int(v), true
		case float64:
			return int(v), true
		}
		return 0, false
	}
	for key, dst := range map[string]*int{
		"InputTokens": &u.InputTokens, "PromptTokens": &u.InputTokens,
		"OutputTokens": &u.OutputTokens, "CompletionTokens": &u.OutputTokens,
		"CacheReadInputTokens": &u.CachedInputTokens, "PromptCachedTokens": &u.CachedInputTokens,
		"CacheCreationInputTokens": &u.CacheCreationInputTokens, "ReasoningTokens": &u.ReasoningTokens,
	} {
		if v, ok := n(key); ok {
			*dst = v
		}
	}
	return u
}

func stopReason(s string) canonical.StopReason {
	switch s {
	case "max_tokens", "length":
		return canonical.StopMaxTokens
	case "tool_use", "tool_calls":
		return canonical.StopToolUse
	case "stop_sequence":
		return canonical.StopStopSequence
	case "content_filter", "refusal":
		return canonical.StopContentFilter
	}
	return canonical.StopEndTurn
}

// generate maps the request and calls GenerateContent.
func (a *Adapter) generate(ctx context.Context, sc *shim.Call, req *canonical.Request, onChunk func(context.Context, []byte) error) (*llms.ContentResponse, error) {
	req, err := sc.SkipUnknown(req)
	if err != nil {
		return nil, err
	}
	if err := canonical.ValidateHistory(req.Messages, req.Tools); err != nil {
		return nil, err
	}
	if err := driver.CheckCapabilities(a.Name(), req, a.Capabilities(req.Model), onChunk != nil); err != nil {
		return nil, err
	}
	model, err := a.model(req.Model)
	if err != nil {
		return nil, canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured, "langchaingo: %v", err)
	}
	msgs, opts, err := a.request(sc, req)
	if err != nil {
		return nil, err
	}
	if onChunk != nil {
		opts = append(opts, llms.WithStreamingFunc(onChunk))
	}
	resp, err := model.GenerateContent(ctx, msgs, opts...)
	if err != nil {
		return nil, a.failure(ctx, err)
	}
	if resp == nil || len(resp.Choices) == 0 {
		return nil, driver.InvalidResponse(a.Name(), nil, "langchaingo returned no choices")
	}
	return resp, nil
}

var statusRE = regexp.MustCompile(`status code: (\d{3})`)

// failure maps an error langchaingo returned. Its HTTP errors are text
// ("API returned unexpected status code: 429: <message>"): the status is
// read from it; the provider's error type and headers are gone.
func (a *Adapter) failure(ctx context.Context, err error) *canonical.AdapterError {
	if ctx.Err() != nil {
		return shim.Failure(ctx, a.Name(), err)
	}
	if m := statusRE.FindStringSubmatch(err.Error()); m != nil {
		status, _ := strconv.Atoi(m[1])
		ae := driver.HTTPError(driver.ClassifyStatus(status), "", status, err.Error())
		ae.Provider, ae.Err, ae.Attempts = a.Name(), err, shim.Attempts(ctx)
		return ae
	}
	return shim.Failure(ctx, a.Name(), err)
}

// request maps a canonical request to langchaingo's messages and options.
func (a *Adapter) request(sc *shim.Call, req *canonical.Request) ([]llms.MessageContent, []llms.CallOption, error) {
	ids := a.ToolIDs(req)
	var msgs []llms.MessageContent
	if req.SystemPrompt != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, req.SystemPrompt))
	}
	for i, m := range req.Messages {
		var parts, results []llms.ContentPart
		for _, b := range m.Content {
			switch b := b.(type) {
			case canonical.TextBlock:
				parts = append(parts, llms.TextContent{Text: b.Text})
			case canonical.ImageBlock:
				switch b.Source.Kind {
				case canonical.ImageBase64:
					data, err := base64.StdEncoding.DecodeString(b.Source.Data)
					if err != nil {
						return nil, nil, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeUnsupportedContent, "messages[%d]: image data: %v", i, err)
					}
					parts = append(parts, llms.BinaryContent{MIMEType: b.MediaType, Data: data})
				default:
					parts = append(parts, llms.ImageURLContent{URL: b.Source.Data})
				}
			case canonical.ToolUseBlock:
				parts = append(parts, llms.ToolCall{ID: ids.Wire(a.Name(), b.ID), Type: "function",
					FunctionCall: &llms.FunctionCall{Name: b.Name, Arguments: string(b.Input)}})
			case canonical.ToolResultBlock:
				var text strings.Builder
				for _, c := range b.Content {
					switch c := c.(type) {
					case canonical.TextBlock:
						text.WriteString(c.Text)
					case canonical.ImageBlock:
						if err := sc.Drop(&req.Messages[i], canonical.BlockImage, "a tool result's image: langchaingo's ToolCallResponse content is text only"); err != nil {
							return nil, nil, err
						}
					}
				}
				results = append(results, llms.ToolCallResponse{ToolCallID: ids.Wire(a.Name(), b.ToolUseID), Content: text.String()})
			case canonical.ThinkingBlock, canonical.RedactedThinkingBlock:
				// langchaingo's MessageContent has no part for a thinking block.
			default:
				return nil, nil, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeUnsupportedContent, "messages[%d]: a %s block", i, b.Type())
			}
		}
		if len(results) > 0 {
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: results})
		}
		if len(parts) > 0 {
			role := llms.ChatMessageTypeHuman
			switch m.Role {
			case canonical.RoleAssistant:
				role = llms.ChatMessageTypeAI
			case canonical.RoleSystem:
				role = llms.ChatMessageTypeSystem
			}
			msgs = append(msgs, llms.MessageContent{Role: role, Parts: parts})
		}
	}
	var opts []llms.CallOption
	if req.MaxOutputTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(req.MaxOutputTokens))
	}
	if req.Temperature != nil {
		opts = append(opts, llms.WithTemperature(*req.Temperature))
	}
	if req.TopP != nil {
		opts = append(opts, llms.WithTopP(*req.TopP))
	}
	if len(req.StopSequences) > 0 {
		opts = append(opts, llms.WithStopWords(req.StopSequences))
	}
	if req.Seed != nil {
		opts = append(opts, llms.WithSeed(int(*req.Seed)))
	}
	if len(req.Tools) > 0 {
		tools := make([]llms.Tool, 0, len(req.Tools))
		for _, t := range req.Tools {
			var params any
			if len(t.InputSchema) > 0 {
				params = jsonValue(t.InputSchema)
			}
			tools = append(tools, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}})
		}
		opts = append(opts, llms.WithTools(tools))
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Mode {
		case canonical.ToolChoiceAuto:
			opts = append(opts, llms.WithToolChoice("auto"))
		case canonical.ToolChoiceNone:
			opts = append(opts, llms.WithToolChoice("none"))
		case canonical.ToolChoiceAny:
			opts = append(opts, llms.WithToolChoice("required"))
		case canonical.ToolChoiceTool:
			opts = append(opts, llms.WithToolChoice(llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: tc.Name}}))
		}
	}
	return msgs, opts, nil
}

// jsonValue decodes a tool's input schema for llms.FunctionDefinition's
// Parameters, which langchaingo marshals as it is.
func jsonValue(raw []byte) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return json.RawMessage(raw)
	}
	return v
}
