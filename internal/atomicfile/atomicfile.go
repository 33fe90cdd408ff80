// Package atomicfile writes files so that a reader never sees half of
// one: the data goes to a temporary file beside the target, synced to
// disk, which is then renamed over it. Cassettes (harness/record),
// goldens and reports (harness) are written through it.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Marker is in the name of every temporary file: ".<name>.tmp-<random>"
// beside the target (.gitignore ignores cassettes/**/*.tmp*).
const Marker = ".tmp-"

// WriteTemp writes the concatenation of parts to a new temporary file in
// path's directory (created when missing), synced to disk and of mode
// 0644, and returns its name, for the caller to rename over path (Commit)
// or remove. On error nothing is left behind.
func WriteTemp(path string, parts ...[]byte) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+Marker+"*")
	if err != nil {
		return "", err
	}
	var errs []error
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			errs = append(errs, err)
			break
		}
	}
	errs = append(errs, f.Sync(), f.Close(), os.Chmod(f.Name(), 0o644))
	if err := errors.Join(errs...); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// Commit renames the temporary file temp over path and syncs the
// directory, so that the rename survives a crash.
func Commit(temp, path string) error {
	if err := os.Rename(temp, path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", temp, path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir syncs a directory, making the renames in it durable. Windows
// cannot open a directory for that; there it does nothing.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Write writes the concatenation of parts to path atomically: WriteTemp,
// then Commit. A failure leaves path as it was and no temporary file.
func Write(path string, parts ...[]byte) error {
	temp, err := WriteTemp(path, parts...)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := Commit(temp, path); err != nil {
		os.Remove(temp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
