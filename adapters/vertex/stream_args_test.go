package vertex

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// TestStreamFunctionCallArguments: the model option asks Vertex AI for
// streamed call arguments exactly on a streamed call with tools, next to
// the tool choice's mode; without the option, or without tools, or
// unstreamed, the body is the Gemini API's.
func TestStreamFunctionCallArguments(t *testing.T) {
	cfg := withKey(config("", map[string]any{"project": "p"}, map[string]adapters.ModelConfig{
		"vertex:gemini-3-pro-preview": {WireName: "gemini-3-pro-preview", Options: map[string]any{"stream_function_call_arguments": true}},
		"vertex:gemini-2.5-pro":       {WireName: "gemini-2.5-pro"},
	}))
	a, err := New(cfg)
	require.NoError(t, err)
	noChoice := weatherRequest("vertex:gemini-3-pro-preview", true, "Weather in Lisbon?")
	noChoice.ToolChoice = nil
	for _, tc := range []struct {
		name   string
		req    *canonical.Request
		stream bool
		want   any // the body's toolConfig, nil when absent
	}{
		{"streamed with tools", weatherRequest("vertex:gemini-3-pro-preview", true, "Weather in Lisbon?"), true,
			map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO", "streamFunctionCallArguments": true}}},
		{"streamed with tools and no tool choice", noChoice, true,
			map[string]any{"functionCallingConfig": map[string]any{"streamFunctionCallArguments": true}}},
		{"not streamed", weatherRequest("vertex:gemini-3-pro-preview", true, "Weather in Lisbon?"), false,
			map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO"}}},
		{"no tools", weatherRequest("vertex:gemini-3-pro-preview", false, "Hi"), true, nil},
		{"option off", weatherRequest("vertex:gemini-2.5-pro", true, "Weather in Lisbon?"), true,
			map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := a.Encode(tc.req, tc.stream)
			require.NoError(t, err)
			var body struct {
				ToolConfig any `json:"toolConfig"`
			}
			require.NoError(t, json.Unmarshal(w.Body, &body))
			if diff := cmp.Diff(tc.want, body.ToolConfig); diff != "" {
				t.Errorf("toolConfig (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamFunctionCallArgumentsOption: a value that is not a boolean
// is refused when the adapter is built, naming the option.
func TestStreamFunctionCallArgumentsOption(t *testing.T) {
	cfg := withKey(config("", map[string]any{"project": "p"}, map[string]adapters.ModelConfig{
		"vertex:gemini-3-pro-preview": {WireName: "gemini-3-pro-preview", Options: map[string]any{"stream_function_call_arguments": "yes"}},
	}))
	_, err := New(cfg)
	require.ErrorContains(t, err, "stream_function_call_arguments")
}
