package secure

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Secret refers to a secret (a password) without holding it: a file whose
// content is the secret, or an environment variable that holds it. At most
// one of the two is set; the zero Secret refers to none.
//
// A Secret is plain data: it can be serialized into a pipeline, and each
// process that makes a connection resolves it there (Resolve), so the
// file or variable must exist where the connection is made: on the
// workers, and in the process that submits the job if it connects too.
type Secret struct {
	// File is a file whose content is the secret. One line break at its
	// end (as echo and most editors write it) is not part of the secret;
	// other white space is. Default: none.
	File string
	// Env is the name of an environment variable whose value is the
	// secret. Default: none.
	Env string
}

// IsZero reports whether s refers to no secret.
func (s Secret) IsZero() bool { return s.File == "" && s.Env == "" }

// String describes the reference, never the secret: "file PATH",
// "environment variable NAME" or "none".
func (s Secret) String() string {
	switch {
	case s.File != "":
		return "file " + s.File
	case s.Env != "":
		return "environment variable " + s.Env
	}
	return "none"
}

// Validate reports a reference that names both a file and a variable.
func (s Secret) Validate() error {
	if s.File != "" && s.Env != "" {
		return fmt.Errorf("give the secret's file (%s) or its environment variable (%s), not both", s.File, s.Env)
	}
	if strings.ContainsAny(s.Env, "= \x00") {
		return fmt.Errorf("%q is not an environment variable name", s.Env)
	}
	return nil
}

// ErrNoSecret is Resolve's error for a zero Secret.
var ErrNoSecret = errors.New("no secret given: name a file or an environment variable holding it")

// Resolve reads the secret. Its errors say where it looked, in one line,
// and never hold the secret.
func (s Secret) Resolve() (string, error) {
	if err := s.Validate(); err != nil {
		return "", err
	}
	switch {
	case s.File != "":
		b, err := os.ReadFile(s.File)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is said once, below
			}
			return "", fmt.Errorf("secret file %s: %w", s.File, err)
		}
		v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if v == "" {
			return "", fmt.Errorf("secret file %s is empty", s.File)
		}
		return v, nil
	case s.Env != "":
		v, ok := os.LookupEnv(s.Env)
		if !ok {
			return "", fmt.Errorf("environment variable %s, which should hold the secret, is not set", s.Env)
		}
		if v == "" {
			return "", fmt.Errorf("environment variable %s, which should hold the secret, is empty", s.Env)
		}
		return v, nil
	}
	return "", ErrNoSecret
}
