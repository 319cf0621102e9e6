//go:build !unix

package main

import (
	"errors"
	"io"
)

// demo needs Unix process groups to hand Ctrl-C to the pipeline once.
func demo(args []string, stdout, stderr io.Writer) error {
	return errors.New("demo: needs a Unix system (process groups)")
}
