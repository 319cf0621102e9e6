// Package cmdtest holds what the tests of the commands under pipelines/cmd
// share: they run a command (in process or as a child) whose output several
// goroutines write while the test reads it.
package cmdtest

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for concurrent writers and a reader:
// a command's standard output or error, written by its goroutines (a
// server's connections, a child process's copiers) while a test polls it.
// The zero value is ready.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
