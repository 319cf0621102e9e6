//go:build unix

package job

import (
	"errors"
	"syscall"
)

// pidGone reports whether no process has the id pid.
func pidGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
