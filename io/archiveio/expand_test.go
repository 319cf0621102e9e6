package archiveio

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"a.json",
		"b.json.gz",
		".hidden.json",
		"2018/10/10/20/19.json.bz2",
		"2018/10/10/20/20.json.bz2",
		"2018/10/10/21/00.json.gz",
		"2018/10/11/notes.txt",
		"2018/.git/config.json",
		"tars/stream-2018-10.tar",
		"tars/empty/.keep",
	} {
		writeFile(t, dir, name, []byte("{}\n"))
	}
	if err := os.Symlink(filepath.Join(dir, "a.json"), filepath.Join(dir, "tars", "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "tars", "dangling.json")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pattern string
		want    []string // relative to dir; nil means an error
		err     string
	}{
		{pattern: "a.json", want: []string{"a.json"}},
		{pattern: ".hidden.json", want: []string{".hidden.json"}},
		{pattern: "*.json*", want: []string{"a.json", "b.json.gz"}},
		{pattern: ".*.json", want: []string{".hidden.json"}},
		{pattern: "2018/*/*/*/*.bz2", want: []string{"2018/10/10/20/19.json.bz2", "2018/10/10/20/20.json.bz2"}},
		{pattern: "2018", want: []string{"2018/10/10/20/19.json.bz2", "2018/10/10/20/20.json.bz2", "2018/10/10/21/00.json.gz", "2018/10/11/notes.txt"}},
		{pattern: "2018/10/1?", want: []string{"2018/10/10/20/19.json.bz2", "2018/10/10/20/20.json.bz2", "2018/10/10/21/00.json.gz", "2018/10/11/notes.txt"}},
		{pattern: "**/*.json.gz", want: []string{"2018/10/10/21/00.json.gz", "b.json.gz"}},
		{pattern: "2018/**/*.json*", want: []string{"2018/10/10/20/19.json.bz2", "2018/10/10/20/20.json.bz2", "2018/10/10/21/00.json.gz"}},
		{pattern: "2018/**/20", want: []string{"2018/10/10/20/19.json.bz2", "2018/10/10/20/20.json.bz2"}},
		{pattern: "2018/**", want: []string{"2018/10/10/20/19.json.bz2", "2018/10/10/20/20.json.bz2", "2018/10/10/21/00.json.gz", "2018/10/11/notes.txt"}},
		{pattern: "tars", want: []string{"tars/link.json", "tars/stream-2018-10.tar"}},
		{pattern: "nothing*.json", err: "no files match"},
		{pattern: "tars/empty", err: "no files match"},
		{pattern: "missing.json", err: "no files match"},
		{pattern: "[a.json", err: "bad pattern"},
		{pattern: "**/[x", err: "bad pattern"},
		{pattern: "", err: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			pattern := tt.pattern
			if pattern != "" {
				pattern = filepath.Join(dir, pattern)
			}
			got, err := Expand(pattern)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), tt.pattern) {
					t.Fatalf("Expand(%q) = %v, %v; want an error saying %q and naming the pattern", tt.pattern, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Expand(%q): %v", tt.pattern, err)
			}
			var rel []string
			for _, p := range got {
				r, err := filepath.Rel(dir, p)
				if err != nil || !strings.HasPrefix(p, dir) {
					t.Fatalf("Expand returned %q outside %q", p, dir)
				}
				rel = append(rel, filepath.ToSlash(r))
			}
			if !slices.Equal(rel, tt.want) {
				t.Errorf("Expand(%q) = %q, want %q", tt.pattern, rel, tt.want)
			}
		})
	}
}

// TestExpandRelative checks that a relative "**" pattern yields paths as
// the caller would write them, relative to the working directory.
func TestExpandRelative(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "in/x/1.json", []byte("{}\n"))
	writeFile(t, dir, "in/2.json", []byte("{}\n"))
	t.Chdir(dir)
	got, err := Expand("in/**/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"in/2.json", "in/x/1.json"}; !slices.Equal(got, want) {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	got, err = Expand("**/1.json")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"in/x/1.json"}; !slices.Equal(got, want) {
		t.Errorf("Expand = %q, want %q", got, want)
	}
}
