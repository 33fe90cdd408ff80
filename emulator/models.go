package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"time"
)

// serveModelList answers GET /v1/models: Anthropic's list shape for a
// request carrying x-api-key and no Authorization, OpenAI's otherwise.
func (s *Server) serveModelList(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Api-Key") != "" && r.Header.Get("Authorization") == "" {
		if !s.authorize(w, r, Anthropic, "") {
			return
		}
		type model struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
			CreatedAt   string `json:"created_at"`
		}
		list := struct {
			Data    []model `json:"data"`
			HasMore bool    `json:"has_more"`
			FirstID *string `json:"first_id"`
			LastID  *string `json:"last_id"`
		}{Data: []model{}}
		for _, m := range s.cfg.models {
			list.Data = append(list.Data, model{"model", m, m, s.cfg.created.UTC().Format(time.RFC3339)})
		}
		if n := len(s.cfg.models); n > 0 {
			list.FirstID, list.LastID = &s.cfg.models[0], &s.cfg.models[n-1]
		}
		writeJSON(w, marshal(list))
		return
	}
	if !s.authorize(w, r, OpenAIChat, "") {
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{}}
	for _, m := range s.cfg.models {
		list.Data = append(list.Data, model{m, "model", s.cfg.created.Unix(), "emulator"})
	}
	writeJSON(w, marshal(list))
}

// serveGeminiModelList answers GET /v1beta/models.
func (s *Server) serveGeminiModelList(w http.ResponseWriter, r *http.Request) {
	if !s.authorize(w, r, Gemini, "") {
		return
	}
	type model struct {
		Name                       string   `json:"name"`
		Version                    string   `json:"version"`
		DisplayName                string   `json:"displayName"`
		SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
	}
	list := struct {
		Models []model `json:"models"`
	}{[]model{}}
	for _, m := range s.cfg.models {
		list.Models = append(list.Models, model{"models/" + m, "001", m, []string{"generateContent", "countTokens"}})
	}
	writeJSON(w, marshalIndent(list, "  "))
}

// ollamaModel is one entry of Ollama's /api/tags and /api/ps.
type ollamaModel struct {
	Name       string        `json:"name"`
	Model      string        `json:"model"`
	ModifiedAt string        `json:"modified_at,omitempty"`
	Size       int64         `json:"size"`
	Digest     string        `json:"digest"`
	Details    ollamaDetails `json:"details"`
	ExpiresAt  string        `json:"expires_at,omitempty"`
	SizeVRAM   *int64        `json:"size_vram,omitempty"`
}

type ollamaDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

func (s *Server) ollamaEntry(name string) ollamaModel {
	sum := sha256.Sum256([]byte(name))
	return ollamaModel{
		Name: name, Model: name, Size: 2019393189, Digest: hex.EncodeToString(sum[:]),
		Details: ollamaDetails{"", "gguf", "llama", []string{"llama"}, "3.2B", "Q4_K_M"},
	}
}

// serveOllamaTags answers GET /api/tags: the installed models, which are
// WithModels and WithLoadedModels together. Ollama checks no key.
func (s *Server) serveOllamaTags(w http.ResponseWriter) {
	names := slices.Clone(s.cfg.models)
	for _, m := range s.cfg.loaded {
		if !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	list := struct {
		Models []ollamaModel `json:"models"`
	}{[]ollamaModel{}}
	for _, m := range names {
		e := s.ollamaEntry(m)
		e.ModifiedAt = s.cfg.created.UTC().Format(time.RFC3339Nano)
		list.Models = append(list.Models, e)
	}
	writeJSON(w, marshal(list))
}

// serveOllamaPS answers GET /api/ps: the loaded models.
func (s *Server) serveOllamaPS(w http.ResponseWriter) {
	list := struct {
		Models []ollamaModel `json:"models"`
	}{[]ollamaModel{}}
	for _, m := range s.cfg.loaded {
		e := s.ollamaEntry(m)
		e.ExpiresAt = s.cfg.created.Add(5 * time.Minute).UTC().Format(time.RFC3339Nano)
		vram := e.Size
		e.SizeVRAM = &vram
		list.Models = append(list.Models, e)
	}
	writeJSON(w, marshal(list))
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(body) //nolint:errcheck // the client went away
}
