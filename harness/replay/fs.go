package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// LoadFS is Load over a file system, such as cassettes.FS: name is the
// cassette's slash-separated path in fsys, with or without ".yaml". As
// Load, it reads the provenance header (an imported cassette's match
// mode), and a missing or empty cassette is an error naming it.
func LoadFS(fsys fs.FS, name string, opts ...Option) (*Player, error) {
	name = path.Clean(strings.TrimSuffix(name, ".yaml"))
	file := name + ".yaml"
	data, err := fs.ReadFile(fsys, file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w %s", ErrNoCassette, file)
	}
	if err != nil {
		return nil, fmt.Errorf("loading cassette %s: %w", file, err)
	}
	c, err := cassette.LoadWithFS(name, readOnlyFS{fsys})
	if err != nil {
		return nil, fmt.Errorf("loading cassette %s: %w", file, err)
	}
	if len(c.Interactions) == 0 {
		return nil, fmt.Errorf("%w %s: it holds no interaction; delete it and record it again", ErrEmptyCassette, file)
	}
	var prov Provenance
	if HasProvenance(data) {
		if prov, err = ParseProvenance(file, data); err != nil {
			return nil, err
		}
	}
	return New(c, append([]Option{withProvenance(prov)}, opts...)...)
}

// readOnlyFS is go-vcr's cassette.FS over an fs.FS; replay never writes.
type readOnlyFS struct{ fsys fs.FS }

func (r readOnlyFS) ReadFile(name string) ([]byte, error) { return fs.ReadFile(r.fsys, name) }

func (r readOnlyFS) WriteFile(name string, _ []byte) error {
	return fmt.Errorf("replay: %s: cassettes are read-only here", name)
}

func (r readOnlyFS) IsFileExists(name string) bool {
	_, err := fs.Stat(r.fsys, name)
	return err == nil
}
