package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// setMeta writes (or, with a nil value, deletes) a metadata row of a
// store no process holds.
func setMeta(t *testing.T, store, name string, value []byte) {
	t.Helper()
	st, err := sink.Open(sink.Config{Store: store, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	c := schemas.MetaRow{Name: name, Value: value}.Cell()
	c.Delete = value == nil
	err = st.Write(t.Context(), []schemas.Cell{c})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// metaRow returns the value of a metadata row of a store no process
// holds, or "" if it has none.
func metaRow(t *testing.T, store, name string) string {
	t.Helper()
	st, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, ok, err := st.Lookup(t.Context(), schemas.TableMeta, []byte(name))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return string(v)
}

// TestIndexRefusesAnotherTokenizer: index into a store whose
// param/tokenizer row names another tokenizer version exits 2 before
// anything runs, with one line saying what to do and the pointer to
// --help; with --mix-tokenizers it runs and the row records both
// versions.
func TestIndexRefusesAnotherTokenizer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := filepath.Join(dir, "tweets.jsonl")
	writeTweets(t, input, 5)
	store := filepath.Join(dir, "store")
	v := transforms.TokenizerVersion
	if code, _, errOut := runCLI(t, "index", "--input", input, "--store", store, "--progress", "0"); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	if got, want := metaRow(t, store, schemas.TokenizerParam), fmt.Sprintf(`{"version":%d}`, v); got != want {
		t.Fatalf("%s of a fresh store: %q, want %q", schemas.TokenizerParam, got, want)
	}
	setMeta(t, store, schemas.TokenizerParam, schemas.TokenizerValue{Version: v + 1}.Cell().Value)
	for _, args := range [][]string{
		{"index", "--input", input, "--store", store, "--progress", "0"},
		{"index", "--input", input, "--store", store, "--progress", "0", "--log-format", "json"},
	} {
		code, out, errOut := runCLI(t, args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		want := fmt.Sprintf("tweetindex index: store %s holds tweets indexed with tokenizer version %d, and this build's tokenizer is version %d", store, v+1, v)
		if code != exitUsage || out != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], want) ||
			!strings.Contains(lines[0], "index into a fresh store or keyspace, or pass --mix-tokenizers") || lines[1] != "Run 'tweetindex index --help' for usage." {
			t.Errorf("%q into a store of another tokenizer version: exit %d, stdout %q, stderr %q; want exit 2, the line %q... and the pointer to --help", args, code, out, errOut, want)
		}
	}
	if code, _, errOut := runCLI(t, "index", "--input", input, "--store", store, "--progress", "0", "--mix-tokenizers"); code != 0 {
		t.Fatalf("index --mix-tokenizers: exit %d\n%s", code, errOut)
	}
	if got, want := metaRow(t, store, schemas.TokenizerParam), fmt.Sprintf(`{"version":%d,"versions":[%d,%d]}`, v, v, v+1); got != want {
		t.Errorf("%s after --mix-tokenizers: %q, want %q", schemas.TokenizerParam, got, want)
	}
}

// TestTermQuestionsNoteMixedTokenizers: terms and count-term on a store
// whose term rows more than one tokenizer version wrote (or another
// version than this build's) say on stderr, in one line, which tweets
// they can miss and what their rows may lack; on a store of this build's
// version, or one indexed before versions were recorded, and for
// questions that read no term rows, nothing is said.
func TestTermQuestionsNoteMixedTokenizers(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "tweets.jsonl")
	writeTweets(t, input, 5)
	store := filepath.Join(dir, "store")
	if code, _, errOut := runCLI(t, "index", "--input", input, "--store", store, "--progress", "0"); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	v := transforms.TokenizerVersion
	value := func(val schemas.TokenizerValue) []byte { return val.Cell().Value }
	cases := []struct {
		name string
		row  []byte   // nil: none
		want []string // in the note, in this order (none: no note)
	}{
		{"this build's version", value(schemas.TokenizerValue{Version: v}), nil},
		{"before versions were recorded", nil, nil},
		{"mixed with tweets indexed before versions were recorded", value(schemas.TokenizerValue{Version: v, Versions: []int{0, v}}), []string{
			fmt.Sprintf("note: this store mixes tweets indexed with tokenizer versions 0 (before versions were recorded) and %d; ", v),
			fmt.Sprintf("term rows of tweets indexed with version 0 may lack terms version %d gives: ", v),
			transforms.TokenizerChange(v),
			fmt.Sprintf("; this question, tokenized with version %d, can miss those tweets (index them again into a fresh store to find them)", v),
		}},
		{"mixed with a later version", value(schemas.TokenizerValue{Version: v + 1, Versions: []int{v, v + 1}}), []string{
			fmt.Sprintf("note: this store mixes tweets indexed with tokenizer versions %d and %d; ", v, v+1),
			fmt.Sprintf("term rows of tweets indexed with version %d may hold other terms than version %d gives; ", v+1, v),
			"can miss those tweets",
		}},
		{"a later version only", value(schemas.TokenizerValue{Version: v + 1}), []string{
			fmt.Sprintf("note: this store was indexed with tokenizer version %d; ", v+1),
			"can miss those tweets",
		}},
	}
	for _, c := range cases {
		setMeta(t, store, schemas.TokenizerParam, c.row)
		for _, args := range [][]string{
			{"terms", "--store", store, "--term", "signals"},
			{"count-term", "--store", store, "--term", "signals", "--format", "csv"},
			{"count", "--store", store, "--format", "csv"},
		} {
			out, errOut := ask(t, args...)
			if args[0] == "terms" && !strings.Contains("\n"+errOut, "\n5 tweets\n") || args[0] == "count-term" && out != "tweets\n5\n" {
				t.Errorf("%s: %q: answer %q: want the 5 tweets", c.name, args, out)
			}
			notes := 0
			for _, l := range strings.Split(errOut, "\n") {
				if strings.Contains(l, "tokenizer") {
					notes++
				}
			}
			want := c.want
			if args[0] == "count" {
				want = nil
			}
			if want == nil {
				if notes != 0 {
					t.Errorf("%s: %q: stderr %q: want no note of tokenizers", c.name, args, errOut)
				}
				continue
			}
			at := 0
			for _, w := range want {
				i := strings.Index(errOut[at:], w)
				if i < 0 {
					t.Errorf("%s: %q: stderr %q: want %q (in order)", c.name, args, errOut, w)
					break
				}
				at += i + len(w)
			}
			if notes != 1 {
				t.Errorf("%s: %q: stderr %q: want one line of note", c.name, args, errOut)
			}
		}
	}
}
