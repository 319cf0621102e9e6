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
	files, _, err := ExpandSkipping(pattern)
	return files, err
}

// Skipped is a file that a pattern matched and Expand leaves out, with
// why: not a regular file (a named pipe, a socket, a device), which
// reading could wait on for ever, or a link to nothing.
type Skipped struct {
	Path   string
	Reason string
}

// ExpandSkipping is Expand, and also returns the files it skipped
// (Skipped), so that a run can name them.
func ExpandSkipping(pattern string) ([]string, []Skipped, error) {
	if pattern == "" {
		return nil, nil, errors.New("archiveio: empty input pattern")
	}
	var files []string
	var skipped []Skipped
	if fi, err := os.Stat(pattern); err == nil {
		if !fi.IsDir() {
			if err := checkRegular(pattern, fi); err != nil {
				return nil, nil, err
			}
			return []string{pattern}, nil, nil
		}
		if files, skipped, err = walk(pattern, files, skipped); err != nil {
			return nil, nil, err
		}
	} else {
		matches, err := glob(pattern)
		if err != nil {
			return nil, nil, fmt.Errorf("archiveio: bad pattern %q: %w", pattern, err)
		}
		dots := strings.HasPrefix(path.Base(filepath.ToSlash(pattern)), ".")
		for _, m := range matches {
			if !dots && hidden(filepath.Base(m)) {
				continue
			}
			fi, err := os.Stat(m)
			switch {
			case err != nil:
				skipped = append(skipped, Skipped{m, "a link to nothing"})
			case fi.IsDir():
				if files, skipped, err = walk(m, files, skipped); err != nil {
					return nil, nil, err
				}
			case fi.Mode().IsRegular():
				files = append(files, m)
			default:
				skipped = append(skipped, Skipped{m, fileKind(fi)})
			}
		}
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("archiveio: no files match %q", pattern)
	}
	slices.Sort(files)
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	return slices.Compact(files), slices.Compact(skipped), nil
}

// checkRegular says, in one line, why the file at p (whose information is
// fi) cannot be read as input, if it cannot.
func checkRegular(p string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("archiveio: %s is %s, not a regular file: input must be files (copy a stream to a file, or send it through Kafka)", p, fileKind(fi))
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(fi fs.FileInfo) string {
	switch t := fi.Mode().Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0, t&fs.ModeCharDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// walk appends the regular files under dir to files, and the others it
// finds (but directories) to skipped, leaving out hidden ones.
func walk(dir string, files []string, skipped []Skipped) ([]string, []Skipped, error) {
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
		if d.IsDir() {
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, p)
			return nil
		}
		fi, err := os.Stat(p) // through a link
		switch {
		case err != nil:
			skipped = append(skipped, Skipped{p, "a link to nothing"})
		case fi.Mode().IsRegular():
			files = append(files, p)
		case !fi.IsDir(): // a link to a directory is not followed
			skipped = append(skipped, Skipped{p, fileKind(fi)})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("archiveio: %w", err)
	}
	return files, skipped, nil
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
