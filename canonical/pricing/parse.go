package pricing

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"
)

// nodeError is a table error at a YAML node's position.
func nodeError(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("pricing: line %d, column %d: %s", n.Line, n.Column, fmt.Sprintf(format, args...))
}

// mappingPairs returns n's key and value nodes, refusing anything but a
// mapping of scalar keys without repeats. what names n in messages.
func mappingPairs(n *yaml.Node, what string) ([][2]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nodeError(n, "%s must be a mapping", what)
	}
	seen := map[string]int{}
	pairs := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, nodeError(k, "%s has a key that is not a scalar", what)
		}
		if line, dup := seen[k.Value]; dup {
			return nil, nodeError(k, "%s: key %q repeats (first at line %d)", what, k.Value, line)
		}
		seen[k.Value] = k.Line
		pairs = append(pairs, [2]*yaml.Node{k, v})
	}
	return pairs, nil
}

func parseTable(root *yaml.Node) (*Table, error) {
	pairs, err := mappingPairs(root, "the price table")
	if err != nil {
		return nil, err
	}
	t := &Table{models: map[string]Price{}}
	var modelsNode *yaml.Node
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "pricing_version":
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Value == "" {
				return nil, nodeError(v, "pricing_version must be a non-empty string")
			}
			t.Version = v.Value
		case "models":
			modelsNode = v
		default:
			return nil, nodeError(k, "unknown field %q; want pricing_version and models", k.Value)
		}
	}
	if t.Version == "" {
		return nil, nodeError(root, "pricing_version is missing")
	}
	if modelsNode == nil {
		return nil, nodeError(root, "models is missing")
	}
	models, err := mappingPairs(modelsNode, "models")
	if err != nil {
		return nil, err
	}
	for _, kv := range models {
		id, entry := kv[0], kv[1]
		provider, name, ok := strings.Cut(id.Value, ":")
		if !ok || provider == "" || name == "" {
			return nil, nodeError(id, "model %q is not a canonical \"provider:name\" id", id.Value)
		}
		p, err := parsePrice(id.Value, entry)
		if err != nil {
			return nil, err
		}
		t.models[id.Value] = p
	}
	return t, nil
}

// rateFields maps the YAML rate names to their Price fields.
var rateFields = []struct {
	name     string
	required bool
	field    func(*Price) *decimal.Decimal
}{
	{"input_per_mtok_usd", true, func(p *Price) *decimal.Decimal { return &p.Input }},
	{"output_per_mtok_usd", true, func(p *Price) *decimal.Decimal { return &p.Output }},
	{"cached_read_per_mtok_usd", false, func(p *Price) *decimal.Decimal { return &p.CachedRead }},
	{"cache_write_per_mtok_usd", false, func(p *Price) *decimal.Decimal { return &p.CacheWrite }},
}

func parsePrice(model string, n *yaml.Node) (Price, error) {
	what := fmt.Sprintf("models[%q]", model)
	pairs, err := mappingPairs(n, what)
	if err != nil {
		return Price{}, err
	}
	var p Price
	set := map[string]bool{}
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		i := -1
		for j, f := range rateFields {
			if f.name == k.Value {
				i = j
			}
		}
		if i < 0 {
			return Price{}, nodeError(k, "%s: unknown field %q", what, k.Value)
		}
		d, err := parseRate(v)
		if err != nil {
			return Price{}, nodeError(v, "%s.%s: %v", what, k.Value, err)
		}
		*rateFields[i].field(&p) = d
		set[k.Value] = true
	}
	for _, f := range rateFields {
		if f.required && !set[f.name] {
			return Price{}, nodeError(n, "%s: %s is missing", what, f.name)
		}
	}
	if !set["cached_read_per_mtok_usd"] {
		p.CachedRead = p.Input
	}
	if !set["cache_write_per_mtok_usd"] {
		p.CacheWrite = p.Input
	}
	return p, nil
}

// parseRate reads a rate from the scalar's text, exactly: the YAML float
// 0.30 becomes the decimal 0.30, never float64's nearest binary value.
func parseRate(v *yaml.Node) (decimal.Decimal, error) {
	if v.Kind != yaml.ScalarNode {
		return decimal.Decimal{}, fmt.Errorf("want a number")
	}
	switch v.Tag {
	case "!!int", "!!float", "!!str":
	default:
		return decimal.Decimal{}, fmt.Errorf("%q is not a number", v.Value)
	}
	d, err := decimal.NewFromString(v.Value)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q is not a decimal number", v.Value)
	}
	if d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("rate %s is negative", v.Value)
	}
	return d, nil
}
