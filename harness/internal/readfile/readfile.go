// Package readfile reads whole files with fewer system calls than
// os.ReadFile, for the harness's per-run reads: a whole-suite run reads
// some thirteen thousand small files (goldens, cassettes, scenarios).
//
// os.Open registers every file with the runtime's poller, which on Linux
// costs several calls that a regular file gains nothing from (two fcntl to
// set non-blocking mode, an epoll_ctl that the kernel refuses, two fcntl
// to undo the first two), and os.ReadFile adds a stat to size its
// buffer. On Linux this package opens, reads and closes the descriptor
// directly; elsewhere it uses package os. Either way, an error is an
// *fs.PathError naming the file, as os.ReadFile's is, so errors.Is(err,
// fs.ErrNotExist) still tells a missing file.
package readfile

import (
	"io"
	"os"
	"slices"
)

// ReadFile returns the contents of the file at path, as os.ReadFile does.
func ReadFile(path string) ([]byte, error) {
	return Append(nil, path, -1)
}

// Append appends the contents of the file at path to dst and returns the
// extended slice. size is how many bytes the caller expects, or negative
// when it has no idea (the file's size is then asked of the system): a
// buffer with room for size bytes and a little more takes the whole file
// in one read and the read that finds its end. On an error, the returned
// slice holds dst and whatever was read before it.
func Append(dst []byte, path string, size int) ([]byte, error) {
	return appendFile(dst, path, size)
}

// grow makes room in b for n more bytes and a little over, so that a file
// of exactly n bytes is read to its end without growing b again.
func grow(b []byte, n int) []byte {
	if n < 0 {
		n = 0
	}
	if need := len(b) + n + 512; cap(b) < need {
		b = slices.Grow(b, need-len(b))
	}
	return b
}

// full grows b when it is full: the file is larger than the caller said.
func full(b []byte) []byte {
	if len(b) == cap(b) {
		b = slices.Grow(b, max(cap(b), 512))
	}
	return b
}

// appendOS is Append through package os: the portable path, used where
// no system-specific one exists (and tested against it where one does).
func appendOS(dst []byte, path string, size int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return dst, err
	}
	defer f.Close()
	if size < 0 {
		st, err := f.Stat()
		if err != nil {
			return dst, err
		}
		size = int(st.Size())
	}
	b := grow(dst, size)
	for {
		b = full(b)
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
