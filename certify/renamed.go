package certify

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

// Rename is one scenario id the suite renamed: runs of From in a
// certificate of an older suite are runs of To in today's. Scenarios are
// renamed by the behaviour they check (never by the metis file they were
// first written against), and ids are otherwise stable.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

//go:embed renamed.json
var renamedJSON []byte

// Renamed returns the published renames of the suite, in the order they
// were made (certify/renamed.json, the suite's version notes beside
// certify/suites.json).
func Renamed() []Rename {
	out, err := parseRenamed(renamedJSON)
	if err != nil {
		panic(err) // renamed.json is checked by the tests
	}
	return out
}

// CurrentID returns the id a scenario id of any earlier suite has today:
// id itself unless it was renamed, following renames of renames.
func CurrentID(id string) string {
	rs := Renamed()
	for range rs { // at most one step per rename: no loop
		next := id
		for _, r := range rs {
			if r.From == id {
				next = r.To
			}
		}
		if next == id {
			return id
		}
		id = next
	}
	return id
}

func parseRenamed(data []byte) ([]Rename, error) {
	var doc struct {
		Renamed []Rename `json:"renamed"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("certify: renamed.json: %w", err)
	}
	from := map[string]bool{}
	for i, r := range doc.Renamed {
		switch {
		case r.From == "" || r.To == "":
			return nil, fmt.Errorf("certify: renamed.json: renamed[%d]: from and to are both required", i)
		case r.From == r.To:
			return nil, fmt.Errorf("certify: renamed.json: renamed[%d]: %s is renamed to itself", i, r.From)
		case from[r.From]:
			return nil, fmt.Errorf("certify: renamed.json: renamed[%d]: %s is renamed twice", i, r.From)
		}
		from[r.From] = true
	}
	return doc.Renamed, nil
}
