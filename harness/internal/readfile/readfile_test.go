package readfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readers are the implementations every test holds to os.ReadFile: the
// one this system uses and the portable one.
var readers = []struct {
	name string
	f    func(dst []byte, path string, size int) ([]byte, error)
}{
	{"Append", Append},
	{"appendOS", appendOS},
}

func TestAppendMatchesReadFile(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{0, 1, 100, 511, 512, 513, 1023, 4096, 4096 + 7, 100_000}
	for _, n := range sizes {
		content := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz\n"), n/37+1)[:n]
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, hint := range []int{-1, 0, n / 2, n - 1, n, n + 1, 2 * n, 1 << 20} {
			for _, prefix := range []string{"", "prefix:"} {
				for _, r := range readers {
					dst := append(make([]byte, 0, len(prefix)), prefix...)
					got, err := r.f(dst, path, hint)
					if err != nil {
						t.Fatalf("%s(%q, %d bytes, hint %d): %v", r.name, prefix, n, hint, err)
					}
					if want := prefix + string(content); string(got) != want {
						t.Errorf("%s(%q, %d bytes, hint %d) = %d bytes, want %d bytes of the file after the prefix", r.name, prefix, n, hint, len(got), len(want))
					}
				}
			}
		}
	}
	got, err := ReadFile("testdata/hello.txt")
	if err != nil || string(got) != "hello, file\n" {
		t.Errorf(`ReadFile("testdata/hello.txt") = %q, %v; want "hello, file\n"`, got, err)
	}
}

// TestErrorsAsReadFile: a missing file and a directory fail as
// os.ReadFile fails, with the same message naming the file, and keep dst.
func TestErrorsAsReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path string
		notExist   bool
	}{
		{"missing", filepath.Join(dir, "missing.json"), true},
		{"missing dir", filepath.Join(dir, "no", "such", "file"), true},
		{"directory", dir, false},
	} {
		_, want := os.ReadFile(tc.path)
		if want == nil {
			t.Fatalf("%s: os.ReadFile(%s) did not fail", tc.name, tc.path)
		}
		for _, r := range readers {
			for _, hint := range []int{-1, 0, 100} {
				got, err := r.f([]byte("kept"), tc.path, hint)
				if err == nil {
					t.Errorf("%s: %s(%s, %d) = %q, no error; want %v", tc.name, r.name, tc.path, hint, got, want)
					continue
				}
				if err.Error() != want.Error() {
					t.Errorf("%s: %s(%s, %d) error %q, want os.ReadFile's %q", tc.name, r.name, tc.path, hint, err, want)
				}
				if errors.Is(err, fs.ErrNotExist) != tc.notExist {
					t.Errorf("%s: %s: errors.Is(%v, fs.ErrNotExist) = %v, want %v", tc.name, r.name, err, !tc.notExist, tc.notExist)
				}
				if !strings.HasPrefix(string(got), "kept") {
					t.Errorf("%s: %s returned %q, want dst kept", tc.name, r.name, got)
				}
			}
		}
	}
}

// FuzzAppend holds Append to os.ReadFile for any contents, size hint and
// destination.
func FuzzAppend(f *testing.F) {
	f.Add([]byte("hello"), -1, []byte(""))
	f.Add([]byte(""), 0, []byte("x"))
	f.Add(bytes.Repeat([]byte("a"), 1500), 3, []byte("pre"))
	f.Add(bytes.Repeat([]byte("b"), 600), 600, []byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content []byte, hint int, prefix []byte) {
		if hint > 1<<20 {
			hint = 1 << 20
		}
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		want := append(append([]byte(nil), prefix...), content...)
		for _, r := range readers {
			got, err := r.f(append([]byte(nil), prefix...), path, hint)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s(%q, hint %d) = %q, %v; want %q", r.name, prefix, hint, got, err, want)
			}
		}
	})
}

// BenchmarkRead compares Append, with and without a size hint, with
// os.ReadFile on a golden-sized file.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 3000), 0o600); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 8192)
	b.Run("Append/hint", func(b *testing.B) {
		for b.Loop() {
			if _, err := Append(buf, path, 3000); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Append/stat", func(b *testing.B) {
		for b.Loop() {
			if _, err := Append(buf, path, -1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}
