package toyprovider

import (
	"encoding/json"
	"net/http"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Classify maps a toy failure to an AdapterError: the status decides the
// class (driver.DefaultClassify's table), refined by the problem's kind.
//
//	kind         class           retried
//	bad_request  invalid_request no
//	bad_key      auth            no
//	slow_down    rate_limit      yes
//	broken       server_error    yes
func (p *provider) Classify(status int, _ http.Header, body []byte) *canonical.AdapterError {
	return classifyProblem(status, body)
}

// classifyProblem reads {"problem":{"kind","text"}}; a body that is not
// one is classified by status alone.
func classifyProblem(status int, body []byte) *canonical.AdapterError {
	var p struct {
		Problem *struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		} `json:"problem"`
	}
	if json.Unmarshal(body, &p) != nil || p.Problem == nil {
		return driver.DefaultClassify(status, nil, body)
	}
	class := driver.ClassifyStatus(status)
	switch p.Problem.Kind {
	case "bad_request":
		class = canonical.ErrInvalidRequest
	case "bad_key":
		class = canonical.ErrAuth
	case "slow_down":
		class = canonical.ErrRateLimit
	case "broken":
		class = canonical.ErrServer
	}
	return driver.HTTPError(class, "", status, p.Problem.Text)
}
