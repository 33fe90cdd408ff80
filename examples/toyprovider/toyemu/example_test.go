package toyemu_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/examples/toyprovider/toyemu"
)

// The toy wire format is registered once, before any emulator serves.
func init() { emulator.Register(toyemu.Wire{}) }

// Once registered, the toy wire format is served by every emulator in
// the process: a scripted reply becomes a toy answer, whole or streamed
// in chunks, and a scripted failure a toy problem with its status.
func ExampleWire() {
	srv := emulator.NewServer(emulator.WithChunkSize(4), emulator.WithReplies(
		emulator.Reply{Text: "Hello!", Usage: canonical.TokenUsage{InputTokens: 5, OutputTokens: 2}},
		emulator.Reply{Text: "Hello!", Usage: canonical.TokenUsage{InputTokens: 5, OutputTokens: 2}},
		emulator.Reply{Error: emulator.ErrorRateLimit}))
	defer srv.Close()

	for _, body := range []string{
		`{"model":"toy-1","turns":[{"who":"user","text":"hi"}]}`,
		`{"model":"toy-1","turns":[{"who":"user","text":"hi"}],"stream":true}`,
		`{"model":"toy-1","turns":[{"who":"user","text":"hi"}]}`,
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/toy", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		req.Header.Set("Toy-Key", "toy-key-FAKE")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %s\n", resp.StatusCode, strings.TrimSpace(string(answer)))
	}
	// Output:
	// 200 {"id":"t_emu_0001","text":"Hello!","end":"done","usage":{"in":5,"out":2}}
	// 200 data: {"delta":"Hell"}
	//
	// data: {"delta":"o!"}
	//
	// data: {"end":"done","usage":{"in":5,"out":2}}
	// 429 {"problem":{"kind":"slow_down","text":"too fast"}}
}
