package record

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"
)

// Source says where a cassette's traffic came from.
type Source string

// Sources.
const (
	SourceLive     Source = "live"
	SourceEmulator Source = "emulator"
)

// provenanceTitle is the first line of a cassette's provenance header.
const provenanceTitle = "# metis cassette provenance"

// Provenance is where a cassette came from; it is written as YAML
// comments at the top of the cassette (see the package documentation).
type Provenance struct {
	Scenario string
	Provider string
	// Model is the run's matrix model.
	Model  string
	Source Source
	// Endpoint is the base URL the traffic went to, when not the
	// provider's own; empty otherwise.
	Endpoint     string
	RecordedAt   time.Time
	MetisVersion string
}

// header renders the provenance comment block, ending with a newline.
func (p Provenance) header() []byte {
	var b bytes.Buffer
	b.WriteString(provenanceTitle + "\n")
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "# %s: %s\n", k, oneLine(v))
		}
	}
	line("scenario", p.Scenario)
	line("provider", p.Provider)
	line("model", p.Model)
	line("source", string(p.Source))
	line("endpoint", p.Endpoint)
	line("recorded_at", p.RecordedAt.UTC().Format(time.RFC3339))
	line("metis_version", p.MetisVersion)
	return b.Bytes()
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// ReadProvenance reads the provenance header of the cassette at path.
func ReadProvenance(path string) (Provenance, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Provenance{}, fmt.Errorf("record: %w", err)
	}
	return ParseProvenance(path, data)
}

// ParseProvenance parses the provenance header at the start of a
// cassette's bytes; file names it in errors, which give its line.
func ParseProvenance(file string, data []byte) (Provenance, error) {
	var p Provenance
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			if text != provenanceTitle {
				return p, fmt.Errorf("%s:1: no provenance header (want the first line %q)", file, provenanceTitle)
			}
			continue
		}
		rest, ok := strings.CutPrefix(text, "#")
		if !ok {
			break
		}
		k, v, ok := strings.Cut(strings.TrimSpace(rest), ":")
		if !ok {
			return p, fmt.Errorf("%s:%d: provenance line %q is not \"# key: value\"", file, n, text)
		}
		v = strings.TrimSpace(v)
		switch k {
		case "scenario":
			p.Scenario = v
		case "provider":
			p.Provider = v
		case "model":
			p.Model = v
		case "source":
			p.Source = Source(v)
			if p.Source != SourceLive && p.Source != SourceEmulator {
				return p, fmt.Errorf("%s:%d: source: want live or emulator, got %q", file, n, v)
			}
		case "endpoint":
			p.Endpoint = v
		case "recorded_at":
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return p, fmt.Errorf("%s:%d: recorded_at: want an RFC 3339 time, got %q", file, n, v)
			}
			p.RecordedAt = t
		case "metis_version":
			p.MetisVersion = v
		}
		// Other keys are from a newer metis; they are kept out, not refused.
	}
	if err := sc.Err(); err != nil {
		return p, fmt.Errorf("%s: %w", file, err)
	}
	if n == 0 {
		return p, fmt.Errorf("%s:1: empty file, no provenance header", file)
	}
	for _, f := range []struct{ name, v string }{{"provider", p.Provider}, {"source", string(p.Source)}} {
		if f.v == "" {
			return p, fmt.Errorf("%s: provenance header has no %s line", file, f.name)
		}
	}
	if p.RecordedAt.IsZero() {
		return p, fmt.Errorf("%s: provenance header has no recorded_at line", file)
	}
	return p, nil
}
