package readfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestAppendSizes reads files shorter, as long as and longer than the size
// the caller expects, and an empty one, after what the buffer holds.
func TestAppendSizes(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789"), 1000)
	for _, tc := range []struct {
		name string
		data []byte
		size int
	}{
		{"empty", nil, 10},
		{"expected", big[:100], 100},
		{"shorter", big[:10], 100},
		{"longer", big, 10},
		{"no-hint", big, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Append([]byte("kept"), p, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if want := append([]byte("kept"), tc.data...); !bytes.Equal(got, want) {
				t.Errorf("Append = %d bytes, want %d", len(got), len(want))
			}
		})
	}
	if _, err := Append(nil, filepath.Join(dir, "missing"), 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
