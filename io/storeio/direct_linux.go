package storeio

import (
	"errors"
	"syscall"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/unix"
)

// setDirect sets O_DIRECT on f, a file just created, where its file
// system takes it, and reports whether it did: a file system that refuses
// O_DIRECT (tmpfs, for one), or a File without a descriptor (a test's
// filesystem in memory), is written through the page cache.
func setDirect(f vfs.File) bool {
	fd := f.Fd()
	if fd == vfs.InvalidFd {
		return false
	}
	flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
	if err != nil {
		return false
	}
	_, err = unix.FcntlInt(fd, unix.F_SETFL, flags|unix.O_DIRECT)
	return err == nil
}

// writeDirect writes b, a whole number of aligned blocks, to f, written
// with O_DIRECT. A file system that took O_DIRECT but refuses the write
// (a block size larger than directAlign) gets it through the page cache:
// f's O_DIRECT is cleared and the write made again.
func writeDirect(f vfs.File, b []byte) error {
	_, err := f.Write(b)
	if !errors.Is(err, syscall.EINVAL) {
		return err
	}
	fd := f.Fd()
	flags, ferr := unix.FcntlInt(fd, unix.F_GETFL, 0)
	if ferr == nil && flags&unix.O_DIRECT != 0 {
		if _, ferr = unix.FcntlInt(fd, unix.F_SETFL, flags&^unix.O_DIRECT); ferr == nil {
			_, err = f.Write(b)
		}
	}
	return err
}

// truncate cuts f, written with O_DIRECT in whole blocks, to size: a
// vfs.File has no Truncate, and only files with a descriptor are written
// so (setDirect).
func truncate(f vfs.File, size int64) error {
	return unix.Ftruncate(int(f.Fd()), size)
}
