package archiveio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Expand returns the files that pattern names, sorted and without
// duplicates. pattern is a file, a directory (walked recursively), or a
// glob in the syntax of filepath.Match, where a "**" path element also
// matches any number of directories ("data/**/*.json.gz"). A directory that
// a glob matches is walked recursively too. Walks skip hidden files and
// directories (names starting with "."), and so do globs unless their last
// element starts with ".". It is an error if nothing matches, or if pattern
// names a file that is not a regular file (a named pipe, a socket, a
// device), which reading could wait on for ever; walks and globs skip
// those.
func Expand(pattern string) ([]string, error) {
	if pattern == "" {
		return nil, errors.New("archiveio: empty input pattern")
	}
	var files []string
	if fi, err := os.Stat(pattern); err == nil {
		if !fi.IsDir() {
			if err := checkRegular(pattern, fi); err != nil {
				return nil, err
			}
			return []string{pattern}, nil
		}
		if files, err = walk(pattern, files); err != nil {
			return nil, err
		}
	} else {
		matches, err := glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("archiveio: bad pattern %q: %w", pattern, err)
		}
		dots := strings.HasPrefix(path.Base(filepath.ToSlash(pattern)), ".")
		for _, m := range matches {
			if !dots && hidden(filepath.Base(m)) {
				continue
			}
			fi, err := os.Stat(m)
			switch {
			case err != nil:
				continue // a dangling link
			case fi.IsDir():
				if files, err = walk(m, files); err != nil {
					return nil, err
				}
			case fi.Mode().IsRegular():
				files = append(files, m)
			}
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("archiveio: no files match %q", pattern)
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// checkRegular says, in one line, why the file at p (whose information is
// fi) cannot be read as input, if it cannot.
func checkRegular(p string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	kind := "not a regular file"
	switch t := fi.Mode().Type(); {
	case t&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		kind = "a socket"
	case t&fs.ModeDevice != 0, t&fs.ModeCharDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("archiveio: %s is %s, not a regular file: input must be files (copy a stream to a file, or send it through Kafka)", p, kind)
}

func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// walk appends the regular files under dir, skipping hidden ones.
func walk(dir string, files []string) ([]string, error) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && hidden(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if regular(p, d) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archiveio: %w", err)
	}
	return files, nil
}

// regular reports whether d is a regular file or a link to one.
func regular(p string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// glob is filepath.Glob with "**" path elements, which match zero or more
// directories.
func glob(pattern string) ([]string, error) {
	elems := strings.Split(filepath.ToSlash(pattern), "/")
	star := -1
	for i, e := range elems {
		if _, err := path.Match(e, ""); err != nil {
			return nil, err
		}
		if e == "**" && star < 0 {
			star = i
		}
	}
	if star < 0 {
		return filepath.Glob(pattern)
	}
	// Expand the part before "**" with an ordinary glob, then walk each
	// match, testing every path below it against the rest.
	roots := []string{"."}
	if star > 0 {
		prefix := strings.Join(elems[:star], "/")
		if prefix == "" {
			prefix = "/"
		}
		var err error
		if roots, err = filepath.Glob(filepath.FromSlash(prefix)); err != nil {
			return nil, err
		}
	}
	rest := elems[star:]
	var out []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return nil // not a directory, or unreadable: no matches
				}
				return err
			}
			if p == root {
				return nil
			}
			if hidden(d.Name()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			if matchElems(rest, strings.Split(filepath.ToSlash(rel), "/")) {
				out = append(out, p)
				if d.IsDir() {
					return fs.SkipDir // the caller walks matched directories
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// matchElems matches path elements against pattern elements, where "**"
// matches any number of elements.
func matchElems(pat, elems []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(elems); i++ {
				if matchElems(pat[1:], elems[i:]) {
					return true
				}
			}
			return false
		}
		if len(elems) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], elems[0]); !ok {
			return false
		}
		pat, elems = pat[1:], elems[1:]
	}
	return len(elems) == 0
}
