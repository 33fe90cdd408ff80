package record

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/metis-llm/metis/internal/atomicfile"
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
// cassette's directory, synced to disk (atomicfile.WriteTemp).
func (t *tempFS) WriteFile(_ string, data []byte) error {
	temp, err := atomicfile.WriteTemp(t.path, t.header, data)
	t.temp = temp
	return err
}

// tempMarker is in the name of every temporary file the recorder makes
// beside a cassette: ".<name>.tmp-<random>" for a staged cassette,
// ".<name>.tmp-old-<random>" for a cassette moved aside while a scenario's
// cassettes are committed. .gitignore ignores cassettes/**/*.tmp*.
const tempMarker = atomicfile.Marker

// commit puts the staged cassettes of recs in place, all or none: each
// existing cassette is first moved aside, then the staged file renamed
// over its path; if any rename fails, the ones done are undone and the
// old cassettes come back. Then every directory touched is synced, so the
// renames survive a crash, and the moved-aside files are removed.
func commit(recs ...*Recorder) error {
	type step struct {
		rec   *Recorder
		fs    *tempFS
		aside string // the old cassette's temporary name, if there was one
		done  bool   // the staged file is in place
	}
	var steps []*step
	for _, r := range recs {
		if fs := r.staged(); fs != nil {
			steps = append(steps, &step{rec: r, fs: fs})
		}
	}
	undo := func() {
		for i := len(steps) - 1; i >= 0; i-- {
			st := steps[i]
			if st.done {
				os.Remove(st.fs.path)
			}
			if st.aside != "" {
				os.Rename(st.aside, st.fs.path)
			}
			st.fs.cleanup()
		}
	}
	for _, st := range steps {
		if _, err := os.Lstat(st.fs.path); err == nil {
			aside, err := asideName(st.fs.path)
			if err != nil {
				undo()
				return fmt.Errorf("record: %w", err)
			}
			if err := os.Rename(st.fs.path, aside); err != nil {
				os.Remove(aside) // the name reserved for it, still empty
				undo()
				return fmt.Errorf("record: moving %s aside: %w", st.fs.path, err)
			}
			st.aside = aside
		}
		if err := os.Rename(st.fs.temp, st.fs.path); err != nil {
			undo()
			return fmt.Errorf("record: renaming %s to %s: %w", st.fs.temp, st.fs.path, err)
		}
		st.done = true
	}
	dirs := map[string]bool{}
	for _, st := range steps {
		st.fs.temp = ""
		st.rec.setWritten()
		dirs[filepath.Dir(st.fs.path)] = true
	}
	var errs []error
	for dir := range dirs {
		errs = append(errs, syncDir(dir))
	}
	for _, st := range steps {
		if st.aside != "" {
			os.Remove(st.aside)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("record: syncing the cassette directories: %w", err)
	}
	return nil
}

// asideName reserves a new temporary name beside path for its old
// content.
func asideName(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+tempMarker+"old-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	return name, nil
}

// syncDir flushes a directory's entries (the renames in it) to disk.
func syncDir(dir string) error { return atomicfile.SyncDir(dir) }

// cleanStale removes the temporary files a killed recording left under
// dir, reporting each to out. A cassette moved aside by a commit that was
// killed before the new cassette took its place is put back.
func cleanStale(dir string, out io.Writer) error {
	changed := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == dir {
				return fs.SkipAll
			}
			return err
		}
		name := d.Name()
		if d.IsDir() || !strings.HasPrefix(name, ".") || !strings.Contains(name, tempMarker) {
			return nil
		}
		base, suffix, _ := strings.Cut(name[1:], tempMarker)
		target := filepath.Join(filepath.Dir(path), base)
		if strings.HasPrefix(suffix, "old-") {
			if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
				if err := os.Rename(path, target); err != nil {
					return err
				}
				fmt.Fprintf(out, "restored %s from %s, left by an interrupted recording\n", target, path)
				changed = true
				return nil
			}
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		fmt.Fprintf(out, "removed %s, left by an interrupted recording\n", path)
		changed = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("record: cleaning up %s: %w", dir, err)
	}
	if changed {
		return syncDir(dir)
	}
	return nil
}

// commit renames the temporary file over the cassette and syncs the
// directory.
func (t *tempFS) commit() error {
	if t.temp == "" {
		return errors.New("nothing was written")
	}
	if err := atomicfile.Commit(t.temp, t.path); err != nil {
		return err
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
