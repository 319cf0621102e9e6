package archiveio

import (
	"strings"
	"sync"
)

// The files whose read failed in this process (an I/O error, a
// permission refused), as the runs in it read them: a run names them
// after it ends, with those it did not read (Skipped). Each is also a
// dead-lettered record at line 0 whose reason is the error.
var (
	unreadableMu sync.Mutex
	unreadable   []Skipped
)

// noteUnreadable records that reading the file at path failed with err.
func noteUnreadable(path string, err error) {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	unreadableMu.Lock()
	defer unreadableMu.Unlock()
	unreadable = append(unreadable, Skipped{Path: path, Reason: "unreadable: " + msg})
}

// UnreadableMark returns a mark of the files whose read failed in this
// process so far, for UnreadableSince.
func UnreadableMark() int {
	unreadableMu.Lock()
	defer unreadableMu.Unlock()
	return len(unreadable)
}

// UnreadableSince returns the files whose read failed in this process
// since mark (UnreadableMark), each once, in the order they failed. Only
// the reads of workers in this process are known (prism's, LOOPBACK).
func UnreadableSince(mark int) []Skipped {
	unreadableMu.Lock()
	defer unreadableMu.Unlock()
	var out []Skipped
	seen := map[string]bool{}
	for _, f := range unreadable[min(mark, len(unreadable)):] {
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	return out
}
