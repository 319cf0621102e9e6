package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsQuestionsRun asks every question the docs show as a command
// (a line of README.md or docs/*.md that starts with ./bin/tweetindex
// query, the store being $S or .tweetindex/store, as after make run) of
// the committed sample's store: each runs as written and answers
// something. The files a command writes (--chart, a redirection) go to a
// temporary directory.
func TestDocsQuestionsRun(t *testing.T) {
	store, _ := indexedSample(t)
	files, err := filepath.Glob("../../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found (%v)", err)
	}
	line := regexp.MustCompile(`(?m)^\./bin/tweetindex query (.*)$`)
	dir := t.TempDir()
	n := 0
	for _, f := range append(files, "../../../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			args, err := shellWords(m[1])
			if err != nil {
				t.Errorf("%s: %q: %v", filepath.Base(f), m[0], err)
				continue
			}
			var run []string
			for i := 0; i < len(args); i++ {
				switch a := args[i]; {
				case a == "$S":
					run = append(run, "--store", store)
				case a == ".tweetindex/store":
					run = append(run, store)
				case a == ">" && i+1 < len(args):
					i++ // the answer is checked below, not written
				case a == "--chart" && i+1 < len(args):
					i++
					run = append(run, a, filepath.Join(dir, filepath.Base(args[i])))
				default:
					run = append(run, a)
				}
			}
			var stdout, stderr bytes.Buffer
			if err := queryMain(run, &stdout, &stderr); err != nil {
				t.Errorf("%s: %s: %v\n%s", filepath.Base(f), m[0], err, stderr.String())
				continue
			}
			if strings.TrimSpace(stdout.String()) == "" {
				t.Errorf("%s: %s: no answer", filepath.Base(f), m[0])
			}
			n++
		}
	}
	t.Logf("%d questions of the docs asked", n)
	if n < 15 {
		t.Errorf("%d questions found in the docs, want the tour's at least", n)
	}
}

// shellWords splits a command line as a POSIX shell does for the docs'
// commands: words separated by blanks, '...' and "..." quoted, a # at
// the start of a word beginning a comment.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, errUnclosedQuote
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

var errUnclosedQuote = errors.New("unclosed quote")
