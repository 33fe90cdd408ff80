package record

import "github.com/metis-llm/metis/harness/replay"

// The provenance header is part of the cassette format, which package
// replay reads; these names keep the recorder's API in one place.

// Provenance is where a cassette came from (replay.Provenance).
type Provenance = replay.Provenance

// Source says where a cassette's traffic came from (replay.Source).
type Source = replay.Source

// Sources.
const (
	SourceLive     = replay.SourceLive
	SourceEmulator = replay.SourceEmulator
	SourceImported = replay.SourceImported
)

// ReadProvenance reads the provenance header of the cassette at path.
func ReadProvenance(path string) (Provenance, error) { return replay.ReadProvenance(path) }

// ParseProvenance parses the provenance header at the start of a
// cassette's bytes; file names it in errors, which give its line.
func ParseProvenance(file string, data []byte) (Provenance, error) {
	return replay.ParseProvenance(file, data)
}
