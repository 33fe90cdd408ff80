package openaicompat

import (
	"encoding/json"
	"slices"
	"strings"
)

// catalog is a server's model list, in any of the shapes the probes meet:
// OpenAI's {"data":[{"id"}]} (vLLM, llama.cpp, OpenRouter, LM Studio's
// /v1 and /api/v0 with "state", llama.cpp's router with "status"),
// LM Studio 0.4's {"models":[{"key","loaded_instances"}]}, and Ollama's
// {"models":[{"name","model"}]} (/api/ps, /api/tags; llama.cpp sends this
// too).
type catalog struct {
	Data   []catalogEntry `json:"data"`
	Models []catalogEntry `json:"models"`
}

// catalogEntry is one model of a catalog.
type catalogEntry struct {
	ID    string `json:"id"`
	Key   string `json:"key"`
	Name  string `json:"name"`
	Model string `json:"model"`
	// State is LM Studio's "loaded" or "not-loaded".
	State string `json:"state"`
	// Status is llama.cpp's router status: "loaded", "loading",
	// "unloaded", "failed".
	Status entryStatus `json:"status"`
	// LoadedInstances is LM Studio 0.4's; nil when absent.
	LoadedInstances *[]json.RawMessage `json:"loaded_instances"`
	// Type, Capabilities and LoadedContextLength are LM Studio's (Discover):
	// type "llm", "vlm" or "embeddings"; capabilities a list (0.3,
	// ["tool_use"]) or an object (0.4, {"trained_for_tool_use", "vision",
	// "reasoning"}); the context of the loaded model (0.3).
	Type                string          `json:"type"`
	Capabilities        json.RawMessage `json:"capabilities"`
	LoadedContextLength int             `json:"loaded_context_length"`
}

// entryStatus reads a status given as a string or as {"value": "..."};
// any other shape is ignored rather than failing the whole list.
type entryStatus string

func (s *entryStatus) UnmarshalJSON(b []byte) error {
	var str string
	if json.Unmarshal(b, &str) == nil {
		*s = entryStatus(str)
		return nil
	}
	var obj struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(b, &obj) == nil {
		*s = entryStatus(obj.Value)
	}
	return nil
}

// Load states a catalogue entry may state.
var (
	stateValues  = map[string]bool{"loaded": true, "not-loaded": true, "loading": true, "unloaded": true}
	statusValues = map[string]bool{"loaded": true, "loading": true, "unloaded": true, "failed": true, "sleeping": true}
)

// loadState reports whether the entry says the model is loaded, and
// whether it says anything about it at all.
func (e *catalogEntry) loadState() (loaded, known bool) {
	switch {
	case stateValues[e.State]:
		return e.State == "loaded", true
	case statusValues[string(e.Status)]:
		return e.Status == "loaded", true
	case e.LoadedInstances != nil:
		return len(*e.LoadedInstances) > 0, true
	}
	return false, false
}

// stateText describes the entry's load state for an error message.
func (e *catalogEntry) stateText() string {
	switch {
	case stateValues[e.State]:
		return e.State
	case statusValues[string(e.Status)]:
		return string(e.Status)
	case e.LoadedInstances != nil:
		return "without loaded instances"
	}
	return "in an unknown state"
}

// matches reports whether the entry names wire. With ollamaTags a name
// without a tag equals the same name tagged ":latest", as in Ollama.
func (e *catalogEntry) matches(wire string, ollamaTags bool) bool {
	for _, n := range [...]string{e.ID, e.Key, e.Name, e.Model} {
		if n == "" {
			continue
		}
		if n == wire || ollamaTags && withTag(n) == withTag(wire) {
			return true
		}
	}
	return false
}

// withTag adds Ollama's default ":latest" tag to a name without one (a
// tag is a colon after the last slash).
func withTag(name string) string {
	if strings.Contains(name[strings.LastIndexByte(name, '/')+1:], ":") {
		return name
	}
	return name + ":latest"
}

// find returns the entry naming wire, or nil.
func (c *catalog) find(wire string, ollamaTags bool) *catalogEntry {
	for _, list := range [2][]catalogEntry{c.Data, c.Models} {
		for i := range list {
			if list[i].matches(wire, ollamaTags) {
				return &list[i]
			}
		}
	}
	return nil
}

// names returns up to n model names, for error messages.
func (c *catalog) names(n int) []string {
	var out []string
	for _, list := range [2][]catalogEntry{c.Data, c.Models} {
		for _, e := range list {
			name := e.ID
			for _, alt := range [...]string{e.Key, e.Name, e.Model} {
				if name == "" {
					name = alt
				}
			}
			if name == "" || slices.Contains(out, name) {
				continue
			}
			if len(out) == n {
				return append(out, "…")
			}
			out = append(out, name)
		}
	}
	return out
}
