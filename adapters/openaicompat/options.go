package openaicompat

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/metis-llm/metis/adapters"
)

// Option keys. Every key but "kind" may be set per model (models.yaml
// options:) or for the whole adapter; the model's value wins.
const (
	optKind              = "kind"
	optAPIPrefix         = "api_prefix"
	optToolResultsAsUser = "tool_results_as_user"
	optNoStreamOptions   = "no_stream_options"
	optReasoningFields   = "reasoning_fields"
	optMaxTokensField    = "max_tokens_field"
	optNoStrict          = "no_strict"
	optReasoningEffort   = "reasoning_effort"
	// Read by openai.ChatDialect.BuildRequest itself.
	optDeveloperRole     = "developer_role"
	optParallelToolCalls = "parallel_tool_calls"
)

// optionKind is the type an option's value must have.
type optionKind int

const (
	optBoolValue optionKind = iota
	optStringValue
	optStringsValue // a string or a list of strings
)

// modelOptionKeys are the keys a model (or the adapter) may set.
var modelOptionKeys = map[string]optionKind{
	optToolResultsAsUser: optBoolValue,
	optNoStreamOptions:   optBoolValue,
	optReasoningFields:   optStringsValue,
	optMaxTokensField:    optStringValue,
	optNoStrict:          optBoolValue,
	optReasoningEffort:   optBoolValue,
	optDeveloperRole:     optBoolValue,
	optParallelToolCalls: optBoolValue,
}

// modelOptions are the dialect knobs in force for one model.
type modelOptions struct {
	toolResultsAsUser bool
	noStreamOptions   bool
	reasoningFields   []string
	maxTokensField    string
	noStrict          bool
	reasoningEffort   bool
}

// defaultOptions are a kind's knobs before any option: both reasoning
// fields, its own first (servers move between them: newer vLLM sends
// both with the same text, and the dialect reads only the first present),
// "max_tokens" (the name every compatible server accepts; only OpenAI
// itself has moved to max_completion_tokens), and no strict-schema
// transform on local servers, whose constrained decoding does not need it.
func defaultOptions(k Kind) modelOptions {
	fields := []string{"reasoning_content", "reasoning"}
	if profiles[k].reasoningField == "reasoning" {
		fields[0], fields[1] = fields[1], fields[0]
	}
	return modelOptions{
		reasoningFields: fields,
		maxTokensField:  "max_tokens",
		noStrict:        !profiles[k].hosted && k != KindGeneric,
	}
}

// optionsFor returns the knobs for model: the kind's defaults overridden
// by the adapter's options, then the model's. Values were checked by
// checkOptions in New.
func optionsFor(cfg *adapters.Config, k Kind, model string) modelOptions {
	o := defaultOptions(k)
	boolOpt := func(key string, dst *bool) {
		if v, ok := cfg.Option(model, key).(bool); ok {
			*dst = v
		}
	}
	boolOpt(optToolResultsAsUser, &o.toolResultsAsUser)
	boolOpt(optNoStreamOptions, &o.noStreamOptions)
	boolOpt(optNoStrict, &o.noStrict)
	boolOpt(optReasoningEffort, &o.reasoningEffort)
	if v, ok := cfg.Option(model, optMaxTokensField).(string); ok {
		o.maxTokensField = v
	}
	if v := cfg.Option(model, optReasoningFields); v != nil {
		o.reasoningFields, _ = stringList(v)
	}
	return o
}

// checkOptions verifies the adapter's and every model's options: known
// keys, values of the right type, and values from the allowed sets. The
// error names the field ("models.ollama:qwen3.options.no_strict: ...").
func checkOptions(cfg *adapters.Config) error {
	if err := checkOptionMap(cfg.Options, "options", true); err != nil {
		return err
	}
	ids := make([]string, 0, len(cfg.Models))
	for id := range cfg.Models {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if err := checkOptionMap(cfg.Models[id].Options, "models."+id+".options", false); err != nil {
			return err
		}
	}
	return nil
}

func checkOptionMap(opts map[string]any, field string, adapterLevel bool) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v := opts[key]
		f := field + "." + key
		switch key {
		case optKind:
			if !adapterLevel {
				return fmt.Errorf("%s: kind is set for the whole adapter, not per model", f)
			}
			continue // parseKind checks it
		case optAPIPrefix:
			if !adapterLevel {
				return fmt.Errorf("%s: api_prefix is set for the whole adapter, not per model", f)
			}
			if s, ok := v.(string); !ok || s != "" && !strings.HasPrefix(s, "/") {
				return fmt.Errorf("%s: want a path such as /v1 or \"\", got %v", f, v)
			}
			continue
		}
		kind, ok := modelOptionKeys[key]
		if !ok {
			return fmt.Errorf("%s: unknown option (want %s)", f, strings.Join(knownOptions(adapterLevel), ", "))
		}
		switch kind {
		case optBoolValue:
			if _, ok := v.(bool); !ok {
				return fmt.Errorf("%s: want true or false, got %T", f, v)
			}
		case optStringValue:
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s: want a string, got %T", f, v)
			}
			if key == optMaxTokensField && s != "max_tokens" && s != "max_completion_tokens" {
				return fmt.Errorf("%s: want max_tokens or max_completion_tokens, got %q", f, s)
			}
		case optStringsValue:
			list, err := stringList(v)
			if err != nil {
				return fmt.Errorf("%s: %v", f, err)
			}
			for _, s := range list {
				if s != "reasoning_content" && s != "reasoning" {
					return fmt.Errorf("%s: unknown reasoning field %q (want reasoning_content or reasoning)", f, s)
				}
			}
		}
	}
	return nil
}

func knownOptions(adapterLevel bool) []string {
	out := make([]string, 0, len(modelOptionKeys)+1)
	if adapterLevel {
		out = append(out, optKind, optAPIPrefix)
	}
	for k := range modelOptionKeys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// stringList reads a string or a list of strings (YAML gives []any).
func stringList(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil, nil
		}
		return []string{v}, nil
	case []string:
		return v, nil
	case []any:
		out := make([]string, 0, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("[%d]: want a string, got %T", i, e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a string or a list of strings, got %T", v)
}
