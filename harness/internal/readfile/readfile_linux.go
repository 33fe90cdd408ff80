package readfile

import (
	"io/fs"
	"syscall"
)

func appendFile(dst []byte, path string, size int) ([]byte, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return dst, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if size < 0 {
		var st syscall.Stat_t
		if err := retry(func() error { return syscall.Fstat(fd, &st) }); err != nil {
			return dst, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		size = int(st.Size)
	}
	b := grow(dst, size)
	for {
		b = full(b)
		var n int
		err := retry(func() (err error) {
			n, err = syscall.Read(fd, b[len(b):cap(b)])
			return err
		})
		if err != nil {
			return b, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// retry calls f again while it fails with EINTR, as package os does.
func retry(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
