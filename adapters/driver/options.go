package driver

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Options holds a provider's typed options (Config.Options and each
// model's models.yaml options) decoded once, when the adapter is built,
// into values of the provider's own struct type O. Request paths read
// them with For; nothing reads Config.Options after New.
type Options[O any] struct {
	adapter O
	models  map[string]O
}

// DecodeOptions decodes cfg's adapter options over defaults, then each
// model's options over the adapter's, into O, a struct whose fields are
// tagged with their option key:
//
//	type options struct {
//		Beta  []string `option:"beta"`
//		Cache bool     `option:"cache"`
//		Kind  string   `option:"kind,adapter" enum:"vllm|ollama"`
//	}
//
// The rules are the same for every provider:
//
//   - bool fields take YAML/JSON booleans only (true, false; "yes" or
//     "true" as strings are errors);
//   - int fields take integers, float64 fields any number; strings are
//     never numbers;
//   - string fields take strings; []string fields a string or a list of
//     strings; enum lists the values a string (or each element) may take;
//   - a pointer field (*bool, *string, ...) is nil when no level set it;
//   - ",adapter" keys may be set for the whole adapter only;
//   - a null value (a YAML key with nothing after it) sets nothing;
//   - an unknown key is an error.
//
// Errors are *canonical.AdapterError of class invalid_request, Code
// not_configured, naming the adapter, the model and the key
// ("adapter \"anthropic\": models.anthropic:claude-x.options.cache: want
// true or false, got a string \"yes\"").
func DecodeOptions[O any](cfg *adapters.Config, defaults O) (*Options[O], error) {
	spec, err := optionSpec(reflect.TypeFor[O]())
	if err != nil {
		panic("driver.DecodeOptions: " + err.Error()) // a programming error in the provider
	}
	return decodeOptions(cfg, defaults, spec, false)
}

// decodeOptions is DecodeOptions with spec, O's fields. The driver's own
// keys (the Limits options) are accepted and left to it; lenient accepts
// any other key too, for the driver's decoding of its own.
func decodeOptions[O any](cfg *adapters.Config, defaults O, spec *optionFields, lenient bool) (*Options[O], error) {
	o := &Options[O]{adapter: defaults}
	if err := spec.decode(reflect.ValueOf(&o.adapter).Elem(), cfg.Options, "options", true, lenient); err != nil {
		return nil, OptionError(cfg, err)
	}
	ids := make([]string, 0, len(cfg.Models))
	for id := range cfg.Models {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		opts := cfg.Models[id].Options
		if len(opts) == 0 {
			continue
		}
		m := o.adapter
		if err := spec.decode(reflect.ValueOf(&m).Elem(), opts, "models."+id+".options", false, lenient); err != nil {
			return nil, OptionError(cfg, err)
		}
		if o.models == nil {
			o.models = map[string]O{}
		}
		o.models[id] = m
	}
	return o, nil
}

// Adapter returns the adapter-level options.
func (o *Options[O]) Adapter() O { return o.adapter }

// For returns the options in force for the model with canonical id model:
// its own over the adapter's over the defaults.
func (o *Options[O]) For(model string) O {
	if m, ok := o.models[model]; ok {
		return m
	}
	return o.adapter
}

// OptionError wraps err, a problem with cfg's options found by the
// provider, as DecodeOptions reports its own.
func OptionError(cfg *adapters.Config, err error) *canonical.AdapterError {
	ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeNotConfigured, "adapter %q: %v", cfg.Name, err)
	ae.Provider = cfg.Name
	return ae
}

// optionField is one tagged field of an options struct.
type optionField struct {
	index        int
	adapterLevel bool
	enum         []string
}

type optionFields struct {
	byKey map[string]optionField
	keys  []string // sorted
	typ   reflect.Type
}

func optionSpec(t reflect.Type) (*optionFields, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("options type %s is not a struct", t)
	}
	s := &optionFields{byKey: map[string]optionField{}, typ: t}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("option")
		if !ok {
			continue
		}
		key, mod, _ := strings.Cut(tag, ",")
		of := optionField{index: i, adapterLevel: mod == "adapter"}
		if e := f.Tag.Get("enum"); e != "" {
			of.enum = strings.Split(e, "|")
		}
		switch base(f.Type).Kind() {
		case reflect.Bool, reflect.String, reflect.Int, reflect.Float64:
		case reflect.Slice:
			if base(f.Type).Elem().Kind() != reflect.String {
				return nil, fmt.Errorf("field %s: unsupported type %s", f.Name, f.Type)
			}
		default:
			return nil, fmt.Errorf("field %s: unsupported type %s", f.Name, f.Type)
		}
		s.byKey[key] = of
		s.keys = append(s.keys, key)
	}
	sort.Strings(s.keys)
	return s, nil
}

func base(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

func (s *optionFields) known(adapterLevel bool) string {
	var out []string
	for _, k := range s.keys {
		if adapterLevel || !s.byKey[k].adapterLevel {
			out = append(out, k)
		}
	}
	if s != limitSpec {
		out = append(out, limitSpec.keys...)
		sort.Strings(out)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// decode sets dst's fields from opts; field is the dotted path of opts
// for errors. Keys of the driver's own options are skipped, and with
// lenient every key s does not know.
func (s *optionFields) decode(dst reflect.Value, opts map[string]any, field string, adapterLevel, lenient bool) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		f := field + "." + key
		of, ok := s.byKey[key]
		if !ok {
			if _, driver := limitSpec.byKey[key]; lenient || driver {
				continue
			}
			return fmt.Errorf("%s: unknown option (want %s)", f, s.known(adapterLevel))
		}
		if opts[key] == nil {
			continue // "key:" with no value, or null: not set
		}
		if of.adapterLevel && !adapterLevel {
			return fmt.Errorf("%s: %s is set for the whole adapter, not per model", f, key)
		}
		if err := setOption(dst.Field(of.index), opts[key], of.enum); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
	}
	return nil
}

// setOption stores v in fv by the rules of DecodeOptions.
func setOption(fv reflect.Value, v any, enum []string) error {
	if fv.Kind() == reflect.Pointer {
		p := reflect.New(fv.Type().Elem())
		if err := setOption(p.Elem(), v, enum); err != nil {
			return err
		}
		fv.Set(p)
		return nil
	}
	switch fv.Kind() {
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want true or false, got %s", describe(v))
		}
		fv.SetBool(b)
	case reflect.String:
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", describe(v))
		}
		if err := inEnum(str, enum); err != nil {
			return err
		}
		fv.SetString(str)
	case reflect.Int:
		n, ok := number(v)
		if !ok || n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return fmt.Errorf("want an integer, got %s", describe(v))
		}
		fv.SetInt(int64(n))
	case reflect.Float64:
		n, ok := number(v)
		if !ok {
			return fmt.Errorf("want a number, got %s", describe(v))
		}
		fv.SetFloat(n)
	case reflect.Slice:
		list, err := stringList(v)
		if err != nil {
			return err
		}
		for _, e := range list {
			if err := inEnum(e, enum); err != nil {
				return err
			}
		}
		fv.Set(reflect.ValueOf(list))
	}
	return nil
}

func inEnum(s string, enum []string) error {
	if len(enum) == 0 || slices.Contains(enum, s) {
		return nil
	}
	return fmt.Errorf("unknown value %q (want %s)", s, strings.Join(enum, ", "))
}

// number reads the numbers YAML and JSON decoding produce.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
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
		return slices.Clone(v), nil
	case []any:
		out := make([]string, 0, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("[%d]: want a string, got %s", i, describe(e))
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a string or a list of strings, got %s", describe(v))
}

// describe names a decoded value's JSON type and shows it, for errors.
func describe(v any) string {
	if v == nil {
		return "null"
	}
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("a string %q", v)
	case bool, int, int64, uint64, float64:
		return fmt.Sprintf("%s %v", JSONKind(v), v)
	}
	return JSONKind(v)
}
