package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
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
	return load(name, data, opts)
}

// fileData is go-vcr's cassette.FS over one file already read.
type fileData struct {
	name string
	data []byte
}

func (f fileData) ReadFile(name string) ([]byte, error) {
	if name != f.name {
		return nil, fmt.Errorf("replay: %s: %w", name, fs.ErrNotExist)
	}
	return f.data, nil
}

func (f fileData) WriteFile(name string, _ []byte) error {
	return fmt.Errorf("replay: %s: cassettes are read-only here", name)
}

func (f fileData) IsFileExists(name string) bool { return name == f.name }
