//go:build !linux

package storeio

import (
	"errors"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// setDirect leaves f written through the page cache: O_DIRECT is Linux's.
func setDirect(vfs.File) bool { return false }

func writeDirect(f vfs.File, b []byte) error {
	_, err := f.Write(b)
	return err
}

// truncate is never called: no file is written with O_DIRECT here.
func truncate(vfs.File, int64) error {
	return errors.New("storeio: truncate of a file written with O_DIRECT")
}
