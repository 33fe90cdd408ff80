//go:build !linux

package readfile

func appendFile(dst []byte, path string, size int) ([]byte, error) {
	return appendOS(dst, path, size)
}
