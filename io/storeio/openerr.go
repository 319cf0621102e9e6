package storeio

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
)

// isLocked reports whether err is Pebble's: the store is locked by
// another process.
func isLocked(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) || strings.Contains(err.Error(), "resource temporarily unavailable")
}

// openError says in one line why the store in dir could not be opened,
// when Pebble's own words would mislead: a lock held by another process
// ("resource temporarily unavailable"), a directory whose files Pebble
// cannot read ("format major version 1", for a garbage CURRENT file), and
// one that holds no database when a reader asks for one (OpenRead).
// Pebble's error follows, wrapped.
func openError(dir string, err error) error {
	msg := err.Error()
	switch {
	case isLocked(err):
		who := ""
		if pid, cmd := lockHolder(dir); pid > 0 {
			who = fmt.Sprintf(" (pid %d", pid)
			if cmd != "" {
				who += ": " + cmd
			}
			who += ")"
		}
		return fmt.Errorf("store %s is in use by another process%s: wait for it to end or stop it, or use another directory (%w)", dir, who, err)
	case errors.Is(err, syscall.EIO):
		return fmt.Errorf("open store %s: its files cannot be read (an I/O error: check the disk, then run the command again) (%w)", dir, err)
	case errors.Is(err, pebble.ErrCorruption), strings.Contains(msg, "format major version"),
		strings.Contains(msg, "MANIFEST"), strings.Contains(msg, "CURRENT"), strings.Contains(msg, "corrupt"):
		return fmt.Errorf("store %s is not a tweetindex store, or is damaged: its files cannot be read (give --store a new or empty directory, or restore the store from a copy) (%w)", dir, err)
	case errors.Is(err, pebble.ErrDBDoesNotExist):
		return fmt.Errorf("store %s holds no tweetindex store: pass the directory tweetindex index --store wrote (%w)", dir, err)
	}
	return fmt.Errorf("open store %s: %w", dir, err)
}

// readError says in one line that a read of the store in dir (what)
// failed, and, when Pebble found a file damaged (a checksum that does not
// match), what to do. Pebble's error, which names the file, follows,
// wrapped.
func readError(dir, what string, err error) error {
	if pebble.IsCorruptionError(err) {
		// Pebble's text of it ends in a line of its own; the first
		// names the file.
		first, _, _ := strings.Cut(err.Error(), "\n")
		return textError{fmt.Sprintf("store %s: %s: a file of the store is damaged: restore the store from a copy, or index its input again into a new store (%s)", dir, what, first), err}
	}
	return fmt.Errorf("store %s: %s: %w", dir, what, err)
}

// fatalLine is the line the process ends with when Pebble cannot go on
// (quietLogger.Fatalf) in the store in dir ("": a snapshot's), with what
// to do.
func fatalLine(dir, msg string) string {
	advice := "the store may be damaged: restore it from a copy, or index its input again into a new store"
	if strings.Contains(msg, "no space left on device") {
		advice = "free space on its filesystem and run the command again"
	}
	first, _, _ := strings.Cut(msg, "\n") // the rest is Pebble's detail and traces
	if dir == "" {
		return fmt.Sprintf("tweetindex: the store's database stopped: %s (%s)", first, advice)
	}
	return fmt.Sprintf("tweetindex: store %s: the database stopped: %s (%s)", dir, first, advice)
}
