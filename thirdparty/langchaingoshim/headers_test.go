package langchaingoshim

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/metis-llm/metis/adapters"
)

// recorder is a transport that keeps the last request's headers.
type recorder struct{ h http.Header }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.h = req.Header.Clone()
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: req}, nil
}

// TestHeaders checks that the client handed to langchaingo sends the
// Config's extra headers and OpenAI's project, which langchaingo has no
// option for, and leaves the library's own headers alone.
func TestHeaders(t *testing.T) {
	tests := []struct {
		name string
		cfg  adapters.Config
		want map[string]string // "" wants the header absent
	}{
		{
			name: "openai project and extra headers",
			cfg: adapters.Config{Name: "openai", Type: "openai",
				Options:      map[string]any{"project": "proj_1", "organization": "org_1"},
				ExtraHeaders: map[string]string{"x-title": "metis"}},
			want: map[string]string{"OpenAI-Project": "proj_1", "X-Title": "metis", "X-Library": "langchaingo"},
		},
		{
			name: "extra header wins over the project",
			cfg: adapters.Config{Name: "openai", Type: "openai",
				Options:      map[string]any{"project": "proj_1"},
				ExtraHeaders: map[string]string{"openai-project": "proj_2"}},
			want: map[string]string{"OpenAI-Project": "proj_2"},
		},
		{
			name: "anthropic has no project header",
			cfg: adapters.Config{Name: "anthropic", Type: "anthropic",
				Options: map[string]any{"project": "proj_1"}},
			want: map[string]string{"OpenAI-Project": "", "X-Library": "langchaingo"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			tt.cfg.HTTPClient = &http.Client{Transport: rec}
			a, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest("POST", "https://api.example.com/v1/chat/completions", nil)
			req.Header.Set("X-Library", "langchaingo") // the library's own
			resp, err := a.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			for k, v := range tt.want {
				if got := rec.h.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if req.Header.Get("OpenAI-Project") != "" {
				t.Error("the caller's request was modified")
			}
		})
	}
}
