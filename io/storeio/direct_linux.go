package storeio

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// createFileDirect creates the file at path for writing around the page
// cache (O_DIRECT), or through it where the file system refuses O_DIRECT
// (tmpfs, for one); direct says which.
func createFileDirect(path string) (f *os.File, direct bool, err error) {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	f, err = os.OpenFile(path, flags|syscall.O_DIRECT, 0o644)
	if errors.Is(err, syscall.EINVAL) {
		f, err = os.OpenFile(path, flags, 0o644)
		return f, false, err
	}
	return f, err == nil, err
}

// writeDirect writes b, a whole number of aligned blocks, to f opened with
// O_DIRECT. A file system that took O_DIRECT at open but refuses the
// write (a block size larger than directAlign) gets it through the page
// cache: f's O_DIRECT is cleared and the write made again.
func writeDirect(f *os.File, b []byte) error {
	_, err := f.Write(b)
	if !errors.Is(err, syscall.EINVAL) {
		return err
	}
	flags, ferr := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if ferr == nil && flags&unix.O_DIRECT != 0 {
		if _, ferr = unix.FcntlInt(f.Fd(), unix.F_SETFL, flags&^unix.O_DIRECT); ferr == nil {
			_, err = f.Write(b)
		}
	}
	return err
}
