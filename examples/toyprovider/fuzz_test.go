package toyprovider_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/examples/toyprovider"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// fuzzSeeds are toy answers, whole and streamed, good and broken.
var fuzzSeeds = []string{
	`{"id":"t_1","text":"Hello!","end":"done","usage":{"in":5,"out":2}}`,
	`{"text":"Hel","end":"cut"}`,
	`{"text":"x"}`,
	`{"end":"sideways"}`,
	"data: {\"delta\":\"Hel\"}\n\ndata: {\"delta\":\"lo\"}\n\ndata: {\"end\":\"done\",\"usage\":{\"in\":1,\"out\":2}}\n\n",
	"data: {\"delta\":\"Hel\"}\n\nevent: problem\ndata: {\"problem\":{\"kind\":\"broken\",\"text\":\"oops\"}}\n\n",
	"data: {\"delta\":\"Hel\"}\n\n",
	"data: {\"delta\":\n\n",
	"\x00\xff",
}

// FuzzDecoders feeds arbitrary bytes to the toy adapter's decoders,
// streamed and whole: no panic, every error an AdapterError, and a
// stream that ends with message.complete keeps the 000 §5.2 invariants.
func FuzzDecoders(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	a, err := toyprovider.New(adapters.Config{APIKey: "toy-key-FAKE", BaseURL: "http://toy.invalid"})
	if err != nil {
		f.Fatal(err)
	}
	req := &canonical.Request{RequestID: "req_1", Model: "toy:toy-1", Messages: []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
	}}
	isAdapterError := func(t *testing.T, err error) {
		t.Helper()
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) {
			t.Fatalf("error %T is not an AdapterError: %v", err, err)
		}
		if strings.Contains(err.Error(), "panic") {
			t.Fatalf("a decoder panicked: %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var evs []canonical.StreamEvent
		for ev, err := range a.StreamBody(req, bytes.NewReader(data)) {
			if err != nil {
				isAdapterError(t, err)
				continue
			}
			evs = append(evs, ev)
		}
		if len(evs) > 0 && evs[len(evs)-1].Type == canonical.EventMessageComplete {
			if f := streamcheck.Check(evs); len(f) > 0 {
				t.Fatalf("invariant broken: %v", f)
			}
		}
		resp, err := a.CompleteBody(req, data)
		if err != nil {
			isAdapterError(t, err)
			return
		}
		if resp.StopReason != canonical.StopEndTurn && resp.StopReason != canonical.StopMaxTokens {
			t.Fatalf("a whole answer stopped with %q", resp.StopReason)
		}
	})
}
