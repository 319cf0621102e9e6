package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommands runs each subcommand as the Makefile and README do, on small
// sets, and checks what it writes and prints (the data sets themselves are
// package tweetgen's tests).
func TestCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		files []string // written under dir
		print string
	}{
		{[]string{"sample", "-seed", "3", "-out", filepath.Join(dir, "sample")},
			[]string{"sample/v1-stream-12a.jsonl", "expected/sample.json"}, "sample: 12 files in"},
		{[]string{"bench", "-n", "50", "-seed", "7", "-span", "72h", "-gzip", "-out", filepath.Join(dir, "bench")},
			[]string{"bench/tweets-000.jsonl.gz", "bench/EXPECTED.json"}, "bench: 50 tweets"},
		{[]string{"grab", "-n", "100", "-days", "1", "-out", filepath.Join(dir, "grab")},
			[]string{"grab/HOURS.json", "grab/twitter-stream-2026-10-01.tar"}, "grab: 100 items"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), c.args, &out); err != nil {
			t.Fatalf("gen %s: %v", strings.Join(c.args, " "), err)
		}
		if !strings.Contains(out.String(), c.print) {
			t.Errorf("gen %s printed %q, want %q", c.args[0], out.String(), c.print)
		}
		for _, f := range c.files {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("gen %s: %v", c.args[0], err)
			}
		}
	}
}

// TestUsageErrors: a missing subcommand, an unknown one, a bad flag value
// and a missing -out are errors that say what to do.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage:"},
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"bench", "-n", "10"}, "-out"},
		{[]string{"bench", "-n", "0", "-out", t.TempDir()}, "-n"},
		{[]string{"grab", "-start", "yesterday", "-out", t.TempDir()}, "YYYY-MM-DD"},
		{[]string{"grab", "-days", "1", "-tar-days", "2", "-out", t.TempDir()}, "-tar-days"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), c.args, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("gen %q: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// TestHelp: gen --help (and -h, help) prints the usage on stdout, no error.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--help", "-h", "help"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{arg}, &out); err != nil || !strings.HasPrefix(out.String(), "usage:") {
			t.Errorf("gen %s: %v, stdout %q; want the usage and no error", arg, err, out.String())
		}
	}
}
