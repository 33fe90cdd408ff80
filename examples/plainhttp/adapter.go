// Package plainhttp is a complete, small third-party adapter: Anthropic's
// Messages API for text, spoken with net/http and nothing of metis's
// runtime but the stream assembler, certified with conformtest (see
// certify_test.go). It shows what an adapter reports so that the
// harness can judge it — docs/certify.md ("What an adapter reports"):
//
//   - every HTTP attempt, through adapters.Config.OnAttempt;
//   - every wait between attempts, slept on adapters.Config.Clock when
//     the caller gives one (the harness's virtual clock: the wait returns
//     at once and is judged exactly), else on a real timer;
//   - cancellation: the call's context is the request's, and the
//     stream's events stop once it is done (driver.Assembler.SetContext).
//
// Its retries follow the contract (000 §6.4, §10.1.11): at most
// 1 + Config.MaxRetries attempts, a Retry-After honoured up to 60 s,
// its own exponential backoff otherwise, and no retry once a stream has
// yielded an event.
package plainhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// maxRetryAfter caps the wait a Retry-After asks for (000 §10.1.11).
const maxRetryAfter = 60 * time.Second

// Adapter is an Anthropic Messages adapter for text.
type Adapter struct {
	cfg    adapters.Config
	client *http.Client
	clock  adapters.Clock
	// Backoff is the wait before retry n (1, 2, ...) when the provider
	// names none.
	Backoff func(n int) time.Duration
}

// New returns the adapter cfg configures. Its HTTP client is cfg's (the
// harness injects one), else http.DefaultClient; its clock is cfg's,
// else the real one.
func New(cfg adapters.Config) (*Adapter, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.anthropic.com"
	}
	a := &Adapter{cfg: cfg, client: cfg.HTTPClient, clock: cfg.Clock}
	if a.client == nil {
		a.client = http.DefaultClient
	}
	if a.clock == nil {
		a.clock = realClock{}
	}
	a.Backoff = func(n int) time.Duration { return 500 * time.Millisecond << (n - 1) }
	return a, nil
}

// Name returns the provider key the adapter was built for.
func (a *Adapter) Name() string { return a.cfg.Name }

// Capabilities declares text in and out, streamed or not: no tools,
// images or thinking, so the scenarios that need them are skipped.
func (a *Adapter) Capabilities(string) canonical.Capabilities {
	return canonical.Capabilities{SupportsStreaming: true, SupportsSystemPrompt: true, MaxContextTokens: 200000, MaxOutputTokens: 64000}
}

// EstimateInputTokens is a byte count over four.
func (a *Adapter) EstimateInputTokens(req *canonical.Request) int {
	n := len(req.SystemPrompt)
	for _, m := range req.Messages {
		for _, b := range m.Content {
			if t, ok := b.(canonical.TextBlock); ok {
				n += len(t.Text)
			}
		}
	}
	return (n + 3) / 4
}

// Cancel is not needed: the caller cancels through the context.
func (a *Adapter) Cancel(string) bool { return false }

// Close releases nothing.
func (a *Adapter) Close() error { return nil }

// Complete makes a non-streaming call.
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	resp, err := a.send(ctx, req, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body messageBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, driver.InvalidResponse(a.cfg.Name, err, "decoding the response: %v", err)
	}
	asm := driver.NewAssembler(nil, a.cfg.Name, req.Model, req.RequestID, req.ToolIDs)
	asm.SetServedModel(body.Model)
	for i, b := range body.Content {
		if b.Type == "text" {
			asm.TextDelta(i, b.Text)
		}
	}
	asm.SetUsage(body.Usage.tokens())
	asm.SetProviderRaw(providerRaw(body.ID))
	return asm.Finish(stopReason(body.StopReason), body.StopReason), nil
}

// Stream makes a streaming call: Anthropic's server-sent events decoded
// into the Assembler, which keeps the event invariants (000 §5.2) and
// stops delivering once ctx is done (§5.3).
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		resp, err := a.send(ctx, req, true)
		if err != nil {
			yield(canonical.StreamEvent{}, err)
			return
		}
		defer resp.Body.Close()
		asm := driver.NewAssembler(yield, a.cfg.Name, req.Model, req.RequestID, req.ToolIDs)
		asm.SetContext(ctx)
		sse := driver.NewSSEReader(resp.Body)
		defer sse.Release()
		var usage canonical.TokenUsage
		var id string
		for {
			ev, err := sse.Next()
			if err != nil {
				asm.Fail(ctx, err) // io.EOF before message_stop: a truncated stream
				return
			}
			var data streamData
			if err := json.Unmarshal([]byte(ev.Data), &data); err != nil {
				asm.Fail(ctx, err)
				return
			}
			switch data.Type {
			case "message_start":
				id = data.Message.ID
				asm.SetServedModel(data.Message.Model)
				usage = data.Message.Usage.tokens()
				asm.SetUsage(usage) // what a stream cut short still reports
				if !asm.Start() {
					return
				}
			case "content_block_start":
				if data.ContentBlock.Type == "text" && !asm.TextDelta(data.Index, data.ContentBlock.Text) {
					return
				}
			case "content_block_delta":
				if data.Delta.Type == "text_delta" && !asm.TextDelta(data.Index, data.Delta.Text) {
					return
				}
			case "content_block_stop":
				if !asm.EndBlock(data.Index) {
					return
				}
			case "message_delta":
				usage.OutputTokens = data.Usage.OutputTokens
				if !asm.UsageUpdate(usage) {
					return
				}
				asm.SetProviderRaw(providerRaw(id))
				asm.Finish(stopReason(data.Delta.StopReason), data.Delta.StopReason)
				return
			case "error":
				asm.Fail(ctx, a.fail(canonical.ErrServer, 0, "stream error: %s", data.Error.Message))
				return
			}
		}
	}
}

// send makes the call's attempts: it reports each one (OnAttempt) and
// sleeps between them on the adapter's clock, honouring Retry-After.
// Only the response headers are awaited, so a stream is never retried
// once its body has begun.
func (a *Adapter) send(ctx context.Context, req *canonical.Request, stream bool) (*http.Response, error) {
	body, err := requestBody(a.cfg.Model(req.Model).WireName, req, stream)
	if err != nil {
		return nil, err
	}
	for n := 1; ; n++ {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(a.cfg.BaseURL, "/")+"/v1/messages", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("content-type", "application/json")
		hr.Header.Set("anthropic-version", "2023-06-01")
		hr.Header.Set("x-api-key", a.cfg.APIKey)
		resp, err := a.client.Do(hr)
		var ae *canonical.AdapterError
		switch {
		case ctx.Err() != nil:
			ae = a.fail(canonical.ErrCancelled, 0, "the call was cancelled")
			ae.RequestID, ae.Attempts = req.RequestID, n
			a.report(adapters.Attempt{RequestID: req.RequestID, N: n, Err: ae})
			return nil, ae
		case err != nil:
			ae = a.fail(canonical.ErrNetwork, 0, "sending the request: %v", err)
			ae.Retryable = true
		case resp.StatusCode == http.StatusOK:
			a.report(adapters.Attempt{RequestID: req.RequestID, N: n, Status: resp.StatusCode})
			return resp, nil
		default:
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			ae = driver.DefaultClassify(resp.StatusCode, resp.Header, msg)
			if resp.StatusCode == 529 || resp.StatusCode == http.StatusServiceUnavailable { // Anthropic's overloaded (002)
				ae.Class, ae.Code, ae.Retryable = canonical.ErrRateLimit, "overloaded", true
			}
			ae.Provider, ae.Status = a.cfg.Name, resp.StatusCode
			ae.RetryAfter = retryAfter(resp.Header, a.clock.Now())
		}
		ae.RequestID, ae.Attempts = req.RequestID, n
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		if !ae.Retryable || n > a.cfg.MaxRetries {
			a.report(adapters.Attempt{RequestID: req.RequestID, N: n, Status: status, Err: ae})
			return nil, ae
		}
		wait := a.Backoff(n)
		if ae.RetryAfter > 0 {
			wait = ae.RetryAfter
		}
		a.report(adapters.Attempt{RequestID: req.RequestID, N: n, Status: status, Err: ae, Wait: wait})
		if err := a.clock.Sleep(ctx, wait); err != nil {
			return nil, a.fail(canonical.ErrCancelled, 0, "cancelled while waiting to retry")
		}
	}
}

// report tells the caller about an attempt, if it listens.
func (a *Adapter) report(at adapters.Attempt) {
	if a.cfg.OnAttempt != nil {
		a.cfg.OnAttempt(at)
	}
}

func (a *Adapter) fail(class canonical.ErrorClass, status int, format string, args ...any) *canonical.AdapterError {
	ae := canonical.NewError(class, "", format, args...)
	ae.Provider, ae.Status = a.cfg.Name, status
	return ae
}

// retryAfter is the wait h asks for at now, capped at 60 s: milliseconds
// (retry-after-ms), else seconds or an HTTP date (Retry-After).
func retryAfter(h http.Header, now time.Time) time.Duration {
	if secs, ok := number(h.Get("retry-after-ms")); ok {
		return capped(secs / 1000)
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if secs, ok := number(v); ok {
		return capped(secs)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return 0
}

// number parses a header's number, an overflow as infinity.
func number(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}

// capped is secs as a wait between 0 and 60 s.
func capped(secs float64) time.Duration {
	switch {
	case !(secs > 0): // negative, zero or NaN
		return 0
	case secs >= maxRetryAfter.Seconds():
		return maxRetryAfter
	}
	return time.Duration(secs * float64(time.Second))
}

// requestBody is the Messages request: the system prompt as a string,
// every message's text as text blocks.
func requestBody(model string, req *canonical.Request, stream bool) ([]byte, error) {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type message struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}
	out := struct {
		Model         string    `json:"model"`
		MaxTokens     int       `json:"max_tokens"`
		System        string    `json:"system,omitempty"`
		Messages      []message `json:"messages"`
		StopSequences []string  `json:"stop_sequences,omitempty"`
		Temperature   *float64  `json:"temperature,omitempty"`
		Stream        bool      `json:"stream"`
	}{Model: model, MaxTokens: 4096, System: req.SystemPrompt, StopSequences: req.StopSequences, Temperature: req.Temperature, Stream: stream}
	if req.MaxOutputTokens > 0 {
		out.MaxTokens = req.MaxOutputTokens
	}
	for _, m := range req.Messages {
		var blocks []block
		for _, b := range m.Content {
			t, ok := b.(canonical.TextBlock)
			if !ok {
				return nil, canonical.NewError(canonical.ErrInvalidRequest, "", "plainhttp speaks text only, not %T", b)
			}
			blocks = append(blocks, block{Type: "text", Text: t.Text})
		}
		// The API wants user and assistant turns to alternate: a turn
		// that follows one of its own role (after a cancelled call) joins
		// it.
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == string(m.Role) {
			out.Messages[n-1].Content = append(out.Messages[n-1].Content, blocks...)
			continue
		}
		out.Messages = append(out.Messages, message{Role: string(m.Role), Content: blocks})
	}
	return json.Marshal(out)
}

func stopReason(s string) canonical.StopReason {
	switch s {
	case "end_turn":
		return canonical.StopEndTurn
	case "max_tokens":
		return canonical.StopMaxTokens
	case "stop_sequence":
		return canonical.StopStopSequence
	}
	return canonical.StopEndTurn
}

// providerRaw keeps the provider's message id (the session files it
// under the provider's name).
func providerRaw(id string) json.RawMessage {
	raw, _ := json.Marshal(map[string]string{"id": id})
	return raw
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

func (u usage) tokens() canonical.TokenUsage {
	return canonical.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
}

type messageBody struct {
	ID         string `json:"id"`
	Model      string `json:"model"`
	StopReason string `json:"stop_reason"`
	Content    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Usage usage `json:"usage"`
}

type streamData struct {
	Type    string      `json:"type"`
	Index   int         `json:"index"`
	Message messageBody `json:"message"`
	Delta   struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	ContentBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content_block"`
	Usage usage `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// realClock is the wall clock, for an adapter used outside the harness.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var _ adapters.Adapter = (*Adapter)(nil)
