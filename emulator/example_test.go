package emulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// A scripted reply comes back in the wire format of the endpoint called,
// here Anthropic's Messages API; the next reply scripts a rate limit with
// Anthropic's status, header and error body. Any adapter takes srv.URL as
// its base URL instead of the raw requests below.
func ExampleNewServer() {
	srv := emulator.NewServer(emulator.WithReplies(
		emulator.Reply{Text: "Hello!", Usage: canonical.TokenUsage{InputTokens: 9, OutputTokens: 2}},
		emulator.Reply{Error: emulator.ErrorRateLimit, Header: http.Header{"Retry-After": {"3"}}},
	))
	defer srv.Close()

	for range 2 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages",
			strings.NewReader(`{"model":"claude-sonnet-4-6","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		req.Header.Set("x-api-key", "sk-ant-FAKE")
		req.Header.Set("anthropic-version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		var answer struct {
			ID         string `json:"id"`
			StopReason string `json:"stop_reason"`
			Content    []struct{ Text string }
			Error      struct{ Type string }
		}
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		if resp.StatusCode == http.StatusOK {
			fmt.Println(resp.StatusCode, answer.ID, answer.Content[0].Text, answer.StopReason)
		} else {
			fmt.Println(resp.StatusCode, answer.Error.Type, "retry-after", resp.Header.Get("Retry-After"))
		}
	}
	fmt.Println(len(srv.Requests()), "requests, the key as sent:", srv.Requests()[0].Header.Get("X-Api-Key"))
	// Output:
	// 200 msg_emu_0001 Hello! end_turn
	// 429 rate_limit_error retry-after 3
	// 2 requests, the key as sent: sk-ant-FAKE
}
