//go:build !linux

package storeio

import "os"

// createFileDirect creates the file at path, written through the page
// cache: O_DIRECT is Linux's.
func createFileDirect(path string) (f *os.File, direct bool, err error) {
	f, err = os.Create(path)
	return f, false, err
}

func writeDirect(f *os.File, b []byte) error {
	_, err := f.Write(b)
	return err
}
