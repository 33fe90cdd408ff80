package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "golden.json")
	if err := Write(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("read %q, %v; want two", got, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the file (no temporary left)", len(entries))
	}
}

func TestWriteTempParts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	temp, err := WriteTemp(path, []byte("head\n"), []byte("body"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(temp), ".c.yaml"+Marker) {
		t.Errorf("temporary name %q lacks the marker", temp)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("path exists before Commit: %v", err)
	}
	if err := Commit(temp, path); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "head\nbody" {
		t.Errorf("content %q, want the parts joined", got)
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The parent "directory" is a file: nothing can be written under it.
	if err := Write(filepath.Join(blocker, "x.json"), []byte("x")); err == nil {
		t.Fatal("Write under a file succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the blocker only", len(entries))
	}
}
