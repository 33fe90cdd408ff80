package adapters

import (
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/canonical"
)

// Compensations are per-model corrections for how models behave, not for
// their wire formats (003 §7): a model's compensations: block in
// models.yaml. Every one is off unless set, and none applies unless the
// adapter is wrapped by package adapters/compensate, which documents when
// to use each.
type Compensations struct {
	// PromptAddendum is appended to the system prompt of every request
	// (003 §7.2).
	PromptAddendum string `json:"prompt_addendum,omitempty"`
	// MaxTools caps the tools sent per request, keeping CoreTools, tools
	// already called in the history, and then the tools most relevant to
	// the last user message (003 §7.3). Zero means no cap.
	MaxTools  int      `json:"max_tools,omitempty"`
	CoreTools []string `json:"core_tools,omitempty"`
	// ForceToolFirstTurn sets tool_choice any on a request with tools and
	// no assistant turn yet, when the caller set no tool choice (003
	// §7.1).
	ForceToolFirstTurn bool `json:"force_tool_first_turn,omitempty"`
	// Retry is the model's retry profile (003 §7.4); nil means none.
	Retry *RetryProfile `json:"retry,omitempty"`
	// TierStandIn makes the model answer, on its adapter, requests for a
	// model of its tier that the adapter does not serve (another
	// provider's model, its alias, or the tier's name), 003 §8.2's
	// "sonnet" on OpenAI.
	TierStandIn bool `json:"tier_stand_in,omitempty"`
}

// RetryProfile retries a whole call that failed with one of On's error
// classes or codes, after the adapter's own retries: at most MaxRetries
// times, waiting BaseDelay, doubling up to MaxDelay.
type RetryProfile struct {
	MaxRetries int           `json:"max_retries"`
	BaseDelay  time.Duration `json:"base_delay"`
	MaxDelay   time.Duration `json:"max_delay"`
	// On lists error classes (rate_limit, server_error, network, ...) and
	// codes (tool_call_state, ...) worth a retry.
	On []string `json:"on"`
}

// compensationKeys are the keys of a compensations: block.
var compensationKeys = []string{"prompt_addendum", "max_tools", "core_tools", "force_tool_first_turn", "retry", "tier_stand_in"}

// errorClasses are the class names a retry profile may name.
var errorClasses = []canonical.ErrorClass{
	canonical.ErrRateLimit, canonical.ErrAuth, canonical.ErrServer, canonical.ErrNetwork,
	canonical.ErrContextOverflow, canonical.ErrInvalidRequest, canonical.ErrCancelled, canonical.ErrOther,
}

// errorCodes are the code names a retry profile may name.
var errorCodes = []string{
	canonical.CodeModelNotFound, canonical.CodeModelNotLoaded, canonical.CodeInvalidResponse, canonical.CodeInvalidHistory,
	canonical.CodeInvalidToolSchema, canonical.CodeToolInputInvalid, canonical.CodeToolCallState, canonical.CodeStrictSchemaRejected,
	canonical.CodeUnsupportedContent, canonical.CodeOverloaded, canonical.CodeTimeout, canonical.CodeStreamTruncated,
	canonical.CodeNotConfigured, canonical.CodeMalformedToolCall, canonical.CodeQuotaExceeded, canonical.CodeUnknownFinishReason,
}

// compensations parses a model's compensations: block.
func (p *registryParser) compensations(n *yaml.Node, field string) (*Compensations, error) {
	c := &Compensations{}
	err := p.mapping(n, field, func(key string, kn, v *yaml.Node) error {
		f := field + "." + key
		var err error
		switch key {
		case "prompt_addendum":
			c.PromptAddendum, err = p.str(v, f)
		case "max_tools":
			if c.MaxTools, err = p.int(v, f); err == nil && c.MaxTools < 1 {
				err = p.errf(v, f, "must be at least 1")
			}
		case "core_tools":
			c.CoreTools, err = p.strList(v, f)
		case "force_tool_first_turn":
			c.ForceToolFirstTurn, err = p.bool(v, f)
		case "retry":
			c.Retry, err = p.retryProfile(v, f)
		case "tier_stand_in":
			c.TierStandIn, err = p.bool(v, f)
		default:
			err = p.errf(kn, f, "unknown field (want %s)", strings.Join(compensationKeys, ", "))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(c.CoreTools) > 0 && c.MaxTools == 0 {
		return nil, p.errf(n, field+".core_tools", "core_tools needs max_tools: it says which tools the cap keeps")
	}
	return c, nil
}

// retryProfile parses a compensations.retry block.
func (p *registryParser) retryProfile(n *yaml.Node, field string) (*RetryProfile, error) {
	r := &RetryProfile{}
	var maxRetries *yaml.Node
	err := p.mapping(n, field, func(key string, kn, v *yaml.Node) error {
		f := field + "." + key
		var err error
		switch key {
		case "max_retries":
			maxRetries = v
			if r.MaxRetries, err = p.int(v, f); err == nil && r.MaxRetries < 1 {
				err = p.errf(v, f, "must be at least 1")
			}
		case "base_delay":
			r.BaseDelay, err = p.duration(v, f)
		case "max_delay":
			r.MaxDelay, err = p.duration(v, f)
		case "on":
			if r.On, err = p.strList(v, f); err == nil {
				for i, s := range r.On {
					if !slices.Contains(errorClasses, canonical.ErrorClass(s)) && !slices.Contains(errorCodes, s) {
						return p.errf(v.Content[i], f, "%q is neither an error class nor an error code", s)
					}
				}
			}
		default:
			err = p.errf(kn, f, "unknown field (want max_retries, base_delay, max_delay, on)")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	switch {
	case maxRetries == nil:
		return nil, p.errf(n, field+".max_retries", "missing")
	case len(r.On) == 0:
		return nil, p.errf(n, field+".on", "missing: name the error classes or codes to retry")
	case r.MaxDelay != 0 && r.MaxDelay < r.BaseDelay:
		return nil, p.errf(n, field+".max_delay", "%s is less than base_delay %s", r.MaxDelay, r.BaseDelay)
	}
	return r, nil
}

// duration parses a Go duration ("2s", "1m30s").
func (p *registryParser) duration(n *yaml.Node, field string) (time.Duration, error) {
	s, err := p.str(n, field)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, p.errf(n, field, "want a duration such as 2s or 1m30s, got %q", s)
	}
	return d, nil
}

// clone returns a deep copy of c.
func (c *Compensations) clone() *Compensations {
	if c == nil {
		return nil
	}
	out := *c
	out.CoreTools = slices.Clone(c.CoreTools)
	if c.Retry != nil {
		r := *c.Retry
		r.On = slices.Clone(c.Retry.On)
		out.Retry = &r
	}
	return &out
}

// WithCompensations returns a copy of r in which the model idOrAlias
// names carries c and no other model carries any compensations: the
// registry to wrap an adapter over (package adapters/compensate reads a
// model's compensations from it) to apply one set of compensations, as
// a conformance run does. r is not changed.
func (r *Registry) WithCompensations(idOrAlias string, c *Compensations) (*Registry, error) {
	m, err := r.Resolve(idOrAlias)
	if err != nil {
		return nil, err
	}
	out := &Registry{file: r.file, adapters: r.adapters, aliases: r.aliases, models: make(map[string]ModelConfig, len(r.models))}
	for id, mc := range r.models {
		mc.Compensations = nil
		if id == m.ID {
			mc.Compensations = c.clone()
		}
		out.models[id] = mc
	}
	return out, nil
}
