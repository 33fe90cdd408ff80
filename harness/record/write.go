package record

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// WriteCassette writes interactions as the cassette at path (".yaml" is
// added when missing) behind prov's header, the way Save writes a
// recording: each interaction scrubbed (Scrub), the bytes scanned for the
// given secrets and anything shaped like a key (a leak is a *LeakError
// and nothing is written), written to a temporary file and renamed over
// the cassette. A cassette that already holds the same traffic and
// provenance apart from recorded_at is left as it is, and unchanged is
// true. Interaction IDs are renumbered from 0.
func WriteCassette(path string, prov Provenance, interactions []*cassette.Interaction, secrets ...string) (unchanged bool, err error) {
	if !strings.HasSuffix(path, ".yaml") {
		path += ".yaml"
	}
	if len(interactions) == 0 {
		return false, fmt.Errorf("record: %s: no interaction to write", path)
	}
	c := cassette.New(strings.TrimSuffix(path, ".yaml"))
	c.MarshalFunc = yaml.Marshal
	sc := newScrubber(nil, nil, secrets)
	for _, in := range interactions {
		if err := sc.collect(in); err != nil {
			return false, err
		}
	}
	for i, in := range interactions {
		in.ID = i
		if err := sc.scrub(in); err != nil {
			return false, err
		}
		c.Interactions = append(c.Interactions, in)
	}
	fs := &tempFS{path: path, header: prov.Header()}
	defer fs.cleanup()
	if err := c.SaveWithFS(fs); err != nil {
		return false, fmt.Errorf("record: writing %s: %w", path, err)
	}
	data, err := os.ReadFile(fs.temp)
	if err != nil {
		return false, fmt.Errorf("record: reading back %s: %w", path, err)
	}
	if leaks := ScanSecrets(data, secrets...); len(leaks) > 0 {
		return false, &LeakError{Path: path, Leaks: leaks}
	}
	if old, err := os.ReadFile(path); err == nil && sameRecording(old, data) {
		return true, nil
	}
	if err := fs.commit(); err != nil {
		return false, fmt.Errorf("record: %w", err)
	}
	return false, nil
}
