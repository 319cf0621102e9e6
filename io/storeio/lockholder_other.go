//go:build !linux

package storeio

// lockHolder returns the pid of the process that holds the store's lock:
// unknown here.
func lockHolder(string) (int, string) { return 0, "" }
