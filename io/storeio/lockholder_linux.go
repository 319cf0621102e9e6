package storeio

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockHolder returns the pid of the process that holds the lock of the
// store in dir, and its command line, as /proc/locks tells; 0 if unknown.
func lockHolder(dir string) (pid int, cmd string) {
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(dir, "LOCK"), &st); err != nil {
		return 0, ""
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, ""
	}
	ino := strconv.FormatUint(st.Ino, 10)
	for _, line := range strings.Split(string(locks), "\n") {
		f := strings.Fields(line)
		// "1: POSIX  ADVISORY  WRITE 1234 fd:01:393218 0 EOF"; a waiter's
		// line has "->" after the number.
		for i := 1; i < len(f); i++ {
			parts := strings.Split(f[i], ":")
			if len(parts) != 3 || parts[2] != ino || f[0] == "->" || (len(f) > 1 && f[1] == "->") {
				continue
			}
			if p, err := strconv.Atoi(f[i-1]); err == nil && p > 0 && p != os.Getpid() {
				return p, commandLine(p)
			}
		}
	}
	return 0, ""
}

// commandLine returns the command line of process pid, shortened.
func commandLine(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	s := string(bytes.TrimRight(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), " "))
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}
