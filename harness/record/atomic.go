package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// tempFS is the cassette.FS go-vcr saves through: instead of the
// cassette it writes a temporary file beside it, behind the provenance
// header, and remembers its name. Save scans that file and renames it
// over the cassette, or removes it.
type tempFS struct {
	path   string // the cassette
	header []byte
	temp   string // the temporary file, once written
}

func (t *tempFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (t *tempFS) IsFileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// WriteFile writes header and data to a new temporary file in the
// cassette's directory, synced to disk.
func (t *tempFS) WriteFile(_ string, data []byte) error {
	dir := filepath.Dir(t.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(t.path)+".tmp-*")
	if err != nil {
		return err
	}
	t.temp = f.Name()
	_, err1 := f.Write(t.header)
	_, err2 := f.Write(data)
	err3 := f.Sync()
	err4 := f.Close()
	err5 := os.Chmod(f.Name(), 0o644)
	return errors.Join(err1, err2, err3, err4, err5)
}

// commit renames the temporary file over the cassette.
func (t *tempFS) commit() error {
	if t.temp == "" {
		return errors.New("nothing was written")
	}
	if err := os.Rename(t.temp, t.path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", t.temp, t.path, err)
	}
	t.temp = ""
	return nil
}

// cleanup removes the temporary file, if any.
func (t *tempFS) cleanup() {
	if t.temp != "" {
		os.Remove(t.temp)
		t.temp = ""
	}
}
