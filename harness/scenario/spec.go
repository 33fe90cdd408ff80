package scenario

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/metis-llm/metis/scenarios"
)

// Spec is the list of test cases the specification names, and the
// sections a scenario's spec: may refer to (scenarios/spec-cases.yaml).
type Spec struct {
	Seeds map[string]SpecSeed `yaml:"seeds"`
	Cases []SpecCase          `yaml:"cases"`
}

// SpecSeed is one seed document: its numbered sections, or for an
// unnumbered one its headings.
type SpecSeed struct {
	Title    string   `yaml:"title"`
	Sections []string `yaml:"sections"`
	Headings []string `yaml:"headings"`
}

// SpecCase is one test case the specification names.
type SpecCase struct {
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title" json:"title"`
	// AppliesTo selects the columns (names, tags or "all") the case
	// concerns; empty means no column: no scenario can assert it.
	AppliesTo []string `yaml:"applies_to" json:"applies_to"`
	// Requires and Lacks narrow AppliesTo by declared capability.
	Requires []string `yaml:"requires" json:"requires,omitempty"`
	Lacks    []string `yaml:"lacks" json:"lacks,omitempty"`
	// EveryRun says how the harness enforces the case on every run.
	EveryRun string `yaml:"every_run" json:"every_run,omitempty"`
	// Elsewhere names the Go test asserting a case no scenario can.
	Elsewhere string `yaml:"elsewhere" json:"elsewhere,omitempty"`
}

var refPattern = regexp.MustCompile(`^([0-9]{3}) (.+)$`)

// ParseSpec reads a spec-cases file; file names it in errors.
func ParseSpec(file string, data []byte) (*Spec, error) {
	var sp Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sp); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	seen := map[string]bool{}
	for i, c := range sp.Cases {
		where := fmt.Sprintf("%s: cases[%d]", file, i)
		m := refPattern.FindStringSubmatch(c.ID)
		switch {
		case m == nil:
			return nil, fmt.Errorf("%s: id %q is not \"<seed> <reference>\"", where, c.ID)
		case seen[c.ID]:
			return nil, fmt.Errorf("%s: id %q is used twice", where, c.ID)
		case c.Title == "":
			return nil, fmt.Errorf("%s (%s): no title", where, c.ID)
		case c.Elsewhere != "" && len(c.AppliesTo) > 0:
			return nil, fmt.Errorf("%s (%s): a case asserted elsewhere applies to no column", where, c.ID)
		case c.Elsewhere == "" && len(c.AppliesTo) == 0:
			return nil, fmt.Errorf("%s (%s): applies_to is empty: say which columns, or where the case is asserted (elsewhere)", where, c.ID)
		}
		if _, ok := sp.Seeds[m[1]]; !ok {
			return nil, fmt.Errorf("%s (%s): seed %s is not listed under seeds", where, c.ID, m[1])
		}
		seen[c.ID] = true
	}
	return &sp, nil
}

var (
	defaultSpecOnce sync.Once
	defaultSpec     *Spec
	defaultSpecErr  error
)

// DefaultSpec returns scenarios/spec-cases.yaml.
func DefaultSpec() (*Spec, error) {
	defaultSpecOnce.Do(func() {
		defaultSpec, defaultSpecErr = ParseSpec("scenarios/spec-cases.yaml", scenarios.SpecCases)
	})
	return defaultSpec, defaultSpecErr
}

// Case returns the case with id ref, or nil.
func (sp *Spec) Case(ref string) *SpecCase {
	for i := range sp.Cases {
		if sp.Cases[i].ID == ref {
			return &sp.Cases[i]
		}
	}
	return nil
}

// CheckRef reports whether ref names a case, or a section (or, for an
// unnumbered seed, a heading) of a listed seed: "000 §5.2.1",
// "003 §10.2 Simple chat", "001 §8.3", "002 Native APIs".
func (sp *Spec) CheckRef(ref string) error {
	if sp.Case(ref) != nil {
		return nil
	}
	m := refPattern.FindStringSubmatch(ref)
	if m == nil {
		return fmt.Errorf("%q is not a reference such as \"000 §5.2.1\" or \"004 001-basic-completion\"", ref)
	}
	seed, ok := sp.Seeds[m[1]]
	if !ok {
		return fmt.Errorf("%q: there is no seed %s", ref, m[1])
	}
	rest := m[2]
	if sec, ok := strings.CutPrefix(rest, "§"); ok {
		if slices.Contains(seed.Sections, sec) {
			return nil
		}
		return fmt.Errorf("%q: seed %s has no section §%s and no such test case", ref, m[1], sec)
	}
	if slices.Contains(seed.Headings, rest) {
		return nil
	}
	return fmt.Errorf("%q names no test case, section or heading of seed %s", ref, m[1])
}
