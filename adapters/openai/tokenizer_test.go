package openai

import (
	"strings"
	"sync"
	"testing"
)

// TestTokenizer: OpenAI models map to their encodings, through routers
// and platforms too; the count is the encoding's (the OpenAI cookbook's
// "tiktoken is great!" is 6 cl100k_base tokens); an unknown model has
// none.
func TestTokenizer(t *testing.T) {
	for model, want := range map[string]string{
		"openai:gpt-5": encodingO200K, "openai:gpt-4o-mini": encodingO200K, "openai:o3-mini": encodingO200K,
		"openrouter:openai/gpt-oss-120b": encodingO200K, "openai:openai.gpt-oss-safeguard-20b": encodingO200K,
		"openai:gpt-4": encodingCL100K, "openai:gpt-3.5-turbo": encodingCL100K,
		"vllm:meta-llama/Llama-3.3-70B-Instruct": "", "openai:custom-model": "",
	} {
		_, name, _ := strings.Cut(model, ":")
		if got := encodingFor(name); got != want {
			t.Errorf("%s: encoding %q, want %q", model, got, want)
		}
		if (Tokenizer(model) == nil) != (want == "") {
			t.Errorf("%s: tokenizer presence wrong", model)
		}
	}
	if n := Tokenizer("openai:gpt-4")("tiktoken is great!"); n != 6 {
		t.Errorf("cl100k_base: %d tokens, want 6", n)
	}
	if n := Tokenizer("openai:gpt-5")(""); n != 0 {
		t.Errorf("empty text: %d tokens", n)
	}
}

// TestTokenizerConcurrent: the shared encodings serve concurrent
// estimates (run with -race).
func TestTokenizerConcurrent(t *testing.T) {
	f := Tokenizer("openai:gpt-5")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if f("hello world, how are you?") == 0 {
					t.Error("zero tokens")
				}
			}
		}()
	}
	wg.Wait()
}
