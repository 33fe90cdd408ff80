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
// cassette's slash-separated path in fsys, with or without ".yaml". A
// missing file is an error wrapping ErrNoCassette that names it.
func LoadFS(fsys fs.FS, name string, opts ...Option) (*Player, error) {
	name = path.Clean(strings.TrimSuffix(name, ".yaml"))
	c, err := cassette.LoadWithFS(name, readOnlyFS{fsys})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w %s", ErrNoCassette, name+".yaml")
		}
		return nil, fmt.Errorf("loading cassette %s: %w", name+".yaml", err)
	}
	return New(c, opts...)
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
