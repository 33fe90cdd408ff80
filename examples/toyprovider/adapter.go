// Package toyprovider is a worked example of an adapter written on the
// metis driver kit (adapters/driver): a complete provider for "toy", a
// small made-up wire format, in four short files. Its unit tests serve
// the format from an httptest server; package toyemu is its emulator
// profile, from which its own conformance suite (testdata/: scenarios,
// cassettes, goldens) is recorded, and TestCertify certifies it through
// conformtest.Run like any other adapter.
//
// # The toy wire format
//
// POST {base_url}/v1/toy with the key in the Toy-Key header and a body
//
//	{"model":"toy-1","system":"...","turns":[{"who":"user","text":"hi"}],"stream":false}
//
// answered, non-streamed, with
//
//	{"id":"t_1","text":"Hello!","end":"done","usage":{"in":5,"out":2}}
//
// where end is "done" (end_turn) or "cut" (max_tokens), or, streamed
// (stream true), with server-sent events: one {"delta":"..."} per piece
// of text, then {"end":"done","usage":{...}}. A failure is a non-2xx
// status with {"problem":{"kind":"...","text":"..."}}, kind one of
// bad_request, bad_key, slow_down, broken; mid-stream it arrives as an
// "event: problem" with the same data.
//
// # What the provider writes, and what the kit does
//
// The provider maps canonical requests to turns (request.go), decodes
// the two answer shapes into the driver's Assembler (response.go) and
// classifies problems (errors.go). It drops what toy cannot carry —
// images, tool calls, thinking — whole, with the lossy-projection WARN
// (driver.Call.Drop). Everything else is the driver's: request ids,
// history validation, the capability check, headers, retries with
// backoff, cancellation, the stream invariants and closing.
//
// Adding it to an installation is one line in a factories map (see the
// package example), and an adapters entry in models.yaml with type toy.
package toyprovider

import (
	"io"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Name is the adapter name when Config.Name is empty, and the type name
// to register the factory under.
const Name = "toy"

// Info is what the driver needs to know about toy: its name, that it
// needs a key, and its token-estimate tuning (toy counts a token per four
// bytes, with one token of framing per turn).
var Info = driver.Info{
	Name: Name,
	Key:  driver.KeyRequired,
	Estimator: driver.Estimator{
		BytesPerToken:         4,
		NonASCIIRunesPerToken: 1.5,
		PerMessage:            1,
	},
}

// options are toy's knobs, per adapter or per model (models.yaml
// options:). The driver decodes them once, with its rules for every
// provider.
type options struct {
	// Shout sends the request with "shout": true, which makes the toy
	// server answer in capitals.
	Shout bool `option:"shout"`
}

// provider is the toy wire format. It holds no per-call state.
type provider struct {
	endpoint string
	opts     *driver.Options[options]
}

// New returns the toy adapter for cfg. cfg.BaseURL is the server root;
// cfg.APIKey is required.
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, options{})
		if err != nil {
			return nil, err
		}
		return &provider{endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/v1/toy", opts: opts}, nil
	})
}

// Capabilities: toy takes text and system prompts, streamed or not, and
// nothing else, whatever the model.
func (p *provider) Capabilities(driver.Model) canonical.Capabilities {
	return canonical.Capabilities{
		SupportsSystemPrompt:         true,
		SupportsStreaming:            true,
		SupportsSystemMessagesInList: true,
		MaxContextTokens:             8192,
		MaxOutputTokens:              1024,
	}
}

// Authorize sends the key in Toy-Key.
func (p *provider) Authorize(h http.Header, key string) { h.Set("Toy-Key", key) }

// DecodeStream decodes a streamed answer (response.go).
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return decodeStream(c, body, a)
}

// DecodeBody decodes a whole answer (response.go).
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return decodeBody(c, body, a)
}
