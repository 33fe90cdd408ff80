package scenario_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

func TestSchemaIsPublished(t *testing.T) {
	onDisk, err := os.ReadFile("../../scenarios/schema.json")
	require.NoError(t, err)
	assert.Equal(t, string(onDisk), string(scenario.SchemaJSON))
}

// TestSchemaCapabilities keeps the schema's capability names in step with
// canonical.Capabilities.
func TestSchemaCapabilities(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(scenario.SchemaJSON, &doc))
	if diff := cmp.Diff(scenario.Capabilities(), doc.Defs["capability"].Enum); diff != "" {
		t.Errorf("doc.Defs.capability.Enum mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"images", "thinking", "tools", "system_prompt", "structured_output", "streaming",
		"streaming_tool_calls", "parallel_tool_calls", "prompt_caching", "system_messages_in_list"}, scenario.Capabilities()); diff != "" {
		t.Errorf("scenario.Capabilities() mismatch (-want +got):\n%s", diff)
	}
	has, known := scenario.Has(canonical.Capabilities{SupportsParallelToolCalls: true}, "parallel_tool_calls")
	assert.True(t, has)
	assert.True(t, known)
	_, known = scenario.Has(canonical.Capabilities{}, "telepathy")
	assert.False(t, known)
}

func TestSchemaEventAndStopEnums(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(scenario.SchemaJSON, &doc))
	if diff := cmp.Diff([]string{
		string(canonical.EventMessageStart), string(canonical.EventTextDelta), string(canonical.EventThinkingDelta),
		string(canonical.EventToolUseStart), string(canonical.EventToolUseInput), string(canonical.EventToolUseEnd),
		string(canonical.EventUsageUpdate), string(canonical.EventMessageComplete),
	}, doc.Defs["event_type"].Enum); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		string(canonical.StopEndTurn), string(canonical.StopMaxTokens), string(canonical.StopStopSequence), string(canonical.StopToolUse),
		string(canonical.StopCancelled), string(canonical.StopError), string(canonical.StopContentFilter),
	}, doc.Defs["stop_reason"].Enum); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestHasEveryCapability sets each supports_ flag alone and requires Has
// to report it, and only it, as its JSON form names it; "max_context_tokens"
// and "accepted_image_media_types" are fields but not capabilities.
func TestHasEveryCapability(t *testing.T) {
	names := scenario.Capabilities()
	require.Len(t, names, 10)
	for _, set := range names {
		var caps canonical.Capabilities
		var m map[string]any
		data, err := json.Marshal(caps)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &m))
		m["supports_"+set] = true
		data, err = json.Marshal(m)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &caps))
		for _, name := range names {
			has, known := scenario.Has(caps, name)
			assert.True(t, known, name)
			assert.Equal(t, name == set, has, "%s set, asking %s", set, name)
		}
	}
	for _, name := range []string{"max_context_tokens", "accepted_image_media_types", "supports_tools", ""} {
		_, known := scenario.Has(canonical.Capabilities{MaxContextTokens: 1}, name)
		assert.False(t, known, name)
	}
}
