package toyprovider

import (
	"encoding/json"
	"net/http"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// toyRequest is the body of POST /v1/toy.
type toyRequest struct {
	Model  string `json:"model"`
	System string `json:"system,omitempty"`
	Turns  []turn `json:"turns"`
	Stream bool   `json:"stream"`
	Shout  bool   `json:"shout,omitempty"`
}

type turn struct {
	Who  string `json:"who"` // user or bot
	Text string `json:"text"`
}

// Encode maps the call's request to a toy request. The driver has
// validated the history and checked the capabilities already; what toy
// cannot carry is dropped with the lossy-projection WARN.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	req := c.Request
	body := toyRequest{
		Model:  c.Model.WireName,
		System: c.SystemText("toy takes text only in its system prompt"),
		Stream: c.Stream,
		Shout:  p.opts.For(c.Model.ID).Shout,
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		who := "user"
		switch m.Role {
		case canonical.RoleSystem:
			continue // in System
		case canonical.RoleAssistant:
			who = "bot"
		case canonical.RoleTool:
			for _, b := range m.Content {
				c.Drop(m, b.Type(), "toy has no tools")
			}
			continue
		}
		var text string
		for _, b := range m.Content {
			if t, ok := b.(canonical.TextBlock); ok {
				text += t.Text
				continue
			}
			c.Drop(m, b.Type(), "toy carries text only")
		}
		if text != "" {
			body.Turns = append(body.Turns, turn{Who: who, Text: text})
		}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, driver.InvalidRequest("", "encoding request: %v", err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	return &driver.Request{URL: p.endpoint, Header: h, Body: data}, nil
}
