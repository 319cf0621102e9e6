package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
)

// runCLI runs tweetindex args in a child process and returns its exit code,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	c := startCLI(t, args...)
	code := c.wait(t, 60*time.Second)
	return code, c.stdout.String(), c.stderr.String()
}

// TestHelpExitsZero: every command's --help (and help COMMAND) prints its
// usage on stdout and exits 0, our flags first and Beam's only named (listed
// by --help-beam); the top-level help lists the commands.
func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string // in this order
		not  []string
	}{
		{[]string{"--help"}, []string{"Commands:", "index ", "backfill ", "query ", "dump ", "schema ", "version "}, []string{"--worker_binary"}},
		{[]string{"-h"}, []string{"Commands:"}, nil},
		{[]string{"help"}, []string{"Commands:"}, nil},
		{[]string{"help", "index"}, []string{"tweetindex index", "Flags:", "--input", "--store", "Beam flags", "--help-beam"}, []string{"--worker_binary", "--dry_run"}},
		{[]string{"index", "--help"}, []string{"tweetindex index", "Flags:", "--input", "--mix-tokenizers", "Beam flags"}, []string{"--worker_binary"}},
		{[]string{"index", "--help-beam"}, []string{"Beam flags of tweetindex index", "--runner", "--worker_binary"}, []string{"--input"}},
		{[]string{"backfill", "--help"}, []string{"tweetindex backfill", "--dry-run", "--root", "Beam flags"}, []string{"--dry_run"}},
		{[]string{"backfill", "status", "--help"}, []string{"backfill status", "Exit code 3", "--format"}, nil},
		{[]string{"help", "backfill"}, []string{"tweetindex backfill"}, nil},
		{[]string{"dump", "--help"}, []string{"tweetindex dump", "--table"}, nil},
		{[]string{"forget", "--help"}, []string{"tweetindex forget --ids FILE", "tombstone", "Exit codes", "--format", "--ids"}, []string{"Beam flags"}},
		{[]string{"schema", "--help"}, []string{"tweetindex schema print", "--replication"}, nil},
		{[]string{"query", "--help"}, []string{"Questions:", "count", "series"}, nil},
		{[]string{"query", "help"}, []string{"Questions:"}, nil},
		{[]string{"query", "geo", "-h"}, []string{"tweetindex query geo", "--bbox"}, nil},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(t, tc.args...)
		if code != 0 || errOut != "" {
			t.Errorf("%q: exit %d, stderr %q; want exit 0 and nothing on stderr", tc.args, code, errOut)
			continue
		}
		at := 0
		for _, w := range tc.want {
			i := strings.Index(out[at:], w)
			if i < 0 {
				t.Errorf("%q: %q missing (or out of order) in:\n%s", tc.args, w, out)
				break
			}
			at += i + len(w)
		}
		for _, n := range tc.not {
			if strings.Contains(out, n) {
				t.Errorf("%q: help shows %q:\n%s", tc.args, n, out)
			}
		}
	}
}

// TestVersion: --version and version print one line naming the Go toolchain.
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || !regexp.MustCompile(`^tweetindex .*go1\.\d+.* \w+/\w+\n$`).MatchString(out) {
			t.Errorf("%q: exit %d, %q; want one line with the version", args, code, out)
		}
	}
}

// TestUsageErrors: a wrong command line exits 2 with a short message whose
// first line says what is wrong and whose last points at --help; nothing runs.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"indx"}, `unknown command "indx" (want index, backfill, query, serve, dump, forget, schema or version); did you mean index?`},
		{[]string{"help", "nope"}, `unknown command "nope"`},
		{[]string{"--store", dir}, "name a command first"},
		{[]string{"index", "--dry-run"}, "unknown flag --dry-run; did you mean --dry_run (a Beam flag: Dry run)?"},
		{[]string{"index", "--inptu", "x"}, "unknown flag --inptu; did you mean --input?"},
		{[]string{"index", "--mix-tokenizer", "--input", "x", "--store", dir}, "unknown flag --mix-tokenizer; did you mean --mix-tokenizers?"},
		{[]string{"backfill", "--mix_tokenizers", "--root", dir}, "unknown flag --mix_tokenizers; did you mean --mix-tokenizers?"},
		{[]string{"backfill", "--root", dir, "--from", "2026-11-01", "--to", "2026-11-02", "--store", dir, "--dry_run"}, "--dry_run is a Beam flag (Dry run); did you mean --dry-run?"},
		{[]string{"index", "--input", "a", "--input", "b", "--store", dir}, `--input given twice ("a", then "b"): give it once`},
		{[]string{"index", "--input", "a", "b", "--store", dir}, `unexpected argument "b" (quote the --input glob`},
		{[]string{"index", "--store", dir}, "no input: pass --input"},
		{[]string{"index", "--input", "a", "--store", dir, "--shards", "x"}, `invalid value "x" for flag --shards`},
		{[]string{"query"}, "name a question"},
		{[]string{"query", "cout", "--store", dir}, "did you mean count?"},
		{[]string{"query", "--store", dir, "count", "--from", "yesterday"}, `--from "yesterday"`},
		{[]string{"query", "count", "--store", dir, "--store", dir}, "--store given twice"},
		{[]string{"query", "export", "--store", dir, "--limit", "2"}, "query export takes no --limit (--limit is for geo, tweets, terms, top, trending and complete)"},
		{[]string{"query", "count", "--store", dir, "--bbox", "1,2,3,4"}, "query count takes no --bbox (--bbox is for count-geo, geo and heatmap)"},
		{[]string{"query", "geo", "--store", dir, "--lnag", "en"}, "unknown flag --lnag; did you mean --lang?"},
		{[]string{"query", "count", "--store", dir, "--form", "csv"}, "unknown flag --form; did you mean --format?"},
		{[]string{"dump", "--store", dir}, "no table: pass --table"},
		{[]string{"dump", "--store", dir, "--table", "nope"}, `--table "nope"`},
		{[]string{"forget", "--store", dir}, "no ids: pass --ids FILE"},
		{[]string{"forget", "--ids", "x"}, "no store: pass --store DIR (or --cassandra HOSTS)"},
		{[]string{"dump", "--table", "raw"}, "no store: pass --store DIR (or --cassandra HOSTS)"},
		{[]string{"backfill", "status", "--from", "2026-11-01", "--to", "2026-11-02"}, "no store: pass --store DIR (or --cassandra HOSTS)"},
		{[]string{"query", "count"}, "no store: pass --store DIR (or --cassandra HOSTS)"},
		{[]string{"query", "count", "--store", dir, "--format", "xml"}, `--format "xml": want table, jsonl, csv or geojson`},
		{[]string{"query", "terms", "--store", dir}, "pass one of --term T, --and T1,T2 or --or T1,T2"},
		{[]string{"forget", "--ids", "x", "--store", dir, "--format", "xml"}, `--format "xml"`},
		{[]string{"schema"}, "want 'schema print', 'schema apply' or 'schema copy'"},
		{[]string{"schema", "copy", "--cassandra", "127.0.0.1:1"}, "pass --from-keyspace"},
		{[]string{"schema", "print", "--replication", "x"}, "--replication"},
		{[]string{"backfill", "status", "--store", dir, "--by", "week"}, `--by "week"`},
		{[]string{"backfill", "status", "--store", dir, "--format", "xml"}, `--format "xml"`},
		{[]string{"backfill", "status", "--store", dir, "extra"}, `unexpected argument "extra"`},
		{[]string{"dump", "--store", dir, "--table", "raw", "extra"}, `unexpected argument "extra"`},
		{[]string{"forget", "--ids", "x", "--store", dir, "extra"}, `unexpected argument "extra"`},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(t, tc.args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
			continue
		}
		if len(tc.args) > 0 && (len(lines) != 2 || !strings.Contains(lines[1], "--help")) {
			t.Errorf("%q: stderr %q; want a line and a pointer to --help", tc.args, lines)
		}
	}
	// A question's mistake points at the question's own help.
	_, _, errOut := runCLI(t, "query", "export", "--store", dir, "--limit", "2")
	if !strings.HasSuffix(errOut, "\nRun 'tweetindex query export --help' for usage.\n") {
		t.Errorf("query export --limit 2: stderr %q; want a pointer to query export --help", errOut)
	}
}

// TestRunnerErrorsFirst: a runner the run cannot use is refused in one
// line, before anything is printed or created.
func TestRunnerErrorsFirst(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "store")
	input, err := filepath.Abs("../../../testdata/sample/tweets.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ runner, want string }{
		{"direct", "tweetindex index: --runner=direct (Beam's legacy direct runner) has no state or timers"},
		{"flink", "tweetindex index: --runner=flink needs --endpoint=HOST:PORT"},
	} {
		code, out, errOut := runCLI(t, "index", "--input", input, "--store", store, "--runner="+tc.runner)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("--runner=%s: exit %d, stdout %q, stderr %q; want exit 1 and the one line %q...", tc.runner, code, out, errOut, tc.want)
		}
		if _, err := os.Stat(store); !os.IsNotExist(err) {
			t.Errorf("--runner=%s: the store was created (%v)", tc.runner, err)
		}
	}
}

// TestFlagsAfterTheQuestion: flags may come before or after the question
// (and before or after a subcommand's verb), with the same answer.
func TestFlagsAfterTheQuestion(t *testing.T) {
	store, _ := indexedSample(t) // open in this process: asked in process
	var answers []string
	for _, args := range [][]string{
		{"count", "--store", store, "--format", "csv"},
		{"--store", store, "count", "--format", "csv"},
		{"--store", store, "--format", "csv", "count"},
		{"--format=csv", "--store", store, "--", "count"},
	} {
		answers = append(answers, first(ask(t, args...)))
	}
	for i, a := range answers {
		if a != answers[0] || !strings.HasPrefix(a, "tweets\n") {
			t.Errorf("answer %d: %q, the first %q", i, a, answers[0])
		}
	}
	for _, args := range [][]string{
		{"schema", "--keyspace", "ks", "print"},
		{"schema", "print", "--keyspace", "ks"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "CREATE KEYSPACE IF NOT EXISTS ks") {
			t.Errorf("%q: exit %d, stderr %q, stdout %.100q", args, code, errOut, out)
		}
	}
}

// TestBackfillStatusJSONLAndExitCode: backfill status --format jsonl writes
// an object per span, and exits 3 while a span is missing, 0 when every
// span of the range is covered.
func TestBackfillStatusJSONLAndExitCode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	hour := filepath.Join(root, "2026", "11", "01", "12")
	if err := os.MkdirAll(hour, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTweets(t, filepath.Join(hour, "00.json"), 10)
	store := filepath.Join(t.TempDir(), "store")
	if code, _, errOut := runCLI(t, "backfill", "--root", root, "--from", "2026-11-01T12:00", "--to", "2026-11-01T13:00", "--store", store, "--progress", "0"); code != 0 {
		t.Fatalf("backfill: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runCLI(t, "backfill", "status", "--store", store, "--from", "2026-11-01T11:00", "--to", "2026-11-01T13:00", "--format", "jsonl")
	want := `{"kind":"span","from":"2026-11-01T11:00:00Z","to":"2026-11-01T12:00:00Z","status":"missing","failed_runs":0}
{"kind":"span","from":"2026-11-01T12:00:00Z","to":"2026-11-01T13:00:00Z","status":"covered","failed_runs":0}
`
	if code != exitIncomplete || out != want || errOut != "" {
		t.Errorf("status with a missing hour: exit %d, stderr %q, stdout:\n%s\nwant exit %d and:\n%s", code, errOut, out, exitIncomplete, want)
	}
	if code, out, errOut := runCLI(t, "backfill", "status", "--store", store, "--from", "2026-11-01T12:00", "--to", "2026-11-01T13:00"); code != 0 || !strings.Contains(out, "covered") {
		t.Errorf("status of the covered hour: exit %d, stderr %q, stdout:\n%s\nwant exit 0", code, errOut, out)
	}
	if code, _, errOut := runCLI(t, "backfill", "status", "--store", store, "--from", "2026-11-01T13:00", "--to", "2026-11-01T12:00"); code != exitUsage || !strings.Contains(errOut, "empty range: --from 2026-11-01T13:00 is not before --to 2026-11-01T12:00") {
		t.Errorf("status with --from after --to: exit %d, stderr %q; want exit %d, empty range", code, errOut, exitUsage)
	}
	if code, _, errOut := runCLI(t, "backfill", "status", "--store", store, "--from", "2026-11-01T14:00"); code != exitIncomplete || !strings.Contains(errOut, "no run is recorded from --from 2026-11-01T14:00 on (the latest ends at 2026-11-01T13:00:00Z)") {
		t.Errorf("status from after the last run: exit %d, stderr %q; want exit %d, nothing recorded from --from on", code, errOut, exitIncomplete)
	}
}

// TestForgetCommand: forget --format jsonl prints one object whose counts
// say what happened, lists the bad lines on stderr and exits 0; the
// table output says the same for people; a store that does not exist
// exits 1.
func TestForgetCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := filepath.Join(dir, "tweets.jsonl")
	writeTweets(t, input, 5)
	store := filepath.Join(dir, "store")
	if code, _, errOut := runCLI(t, "index", "--input", input, "--store", store, "--progress", "0"); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	ids := filepath.Join(dir, "ids.txt")
	// writeTweets numbers its ids from 1e15.
	list := "1000000000000001\n{\"id\":\"1000000000000003\",\"action\":\"delete\"}\nnonsense\n1000000000000099\n"
	if err := os.WriteFile(ids, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "forget", "--ids", ids, "--store", store, "--format", "jsonl")
	re := regexp.MustCompile(`^\{"read":3,"distinct":3,"forgotten":2,"already_absent":1,"already_deleted":0,"not_deletes":0,"bad_lines":1,"rows_deleted":\d+,"recounted":1,"seconds":[0-9.e-]+\}\n$`)
	if code != 0 || !re.MatchString(out) || !strings.Contains(errOut, "ids.txt:3: not a tweet id") {
		t.Errorf("forget --format jsonl: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "forget", "--ids", ids, "--store", store)
	if code != 0 || !strings.Contains(out, "forgotten 0, already absent 3 (3 deleted before") {
		t.Errorf("forget again: exit %d, stdout %q", code, out)
	}
	if code, _, errOut := runCLI(t, "forget", "--ids", ids, "--store", filepath.Join(dir, "nope")); code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Errorf("forget from a store that does not exist: exit %d, stderr %q; want exit 1", code, errOut)
	}
}

// TestProfileFlags: index --cpuprofile, --memprofile and --trace each
// leave their file, in its format (pprof's gzipped protocol buffers, the
// execution trace's header), even from a run shorter than the heap
// profile's half-second check.
func TestProfileFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := filepath.Join(dir, "tweets.jsonl")
	writeTweets(t, input, 5)
	cpu, mem, trace := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof"), filepath.Join(dir, "run.trace")
	if code, _, errOut := runCLI(t, "index", "--input", input, "--store", filepath.Join(dir, "store"), "--progress", "0",
		"--cpuprofile", cpu, "--memprofile", mem, "--trace", trace); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	for _, f := range []struct{ path, prefix string }{{cpu, "\x1f\x8b"}, {mem, "\x1f\x8b"}, {trace, "go 1."}} {
		b, err := os.ReadFile(f.path)
		if err != nil || !strings.HasPrefix(string(b), f.prefix) {
			t.Errorf("%s: %d bytes beginning %q, error %v; want it to begin %q", filepath.Base(f.path), len(b), b[:min(len(b), 8)], err, f.prefix)
		}
	}
}

// TestCassandraWithoutTables: a question or a run against a keyspace that
// has no tables (a real CQL server, the project's test server) fails in
// one line naming Cassandra's complaint, with a hint to create the
// tables after it.
func TestCassandraWithoutTables(t *testing.T) {
	t.Parallel()
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	input := filepath.Join(t.TempDir(), "tweets.jsonl")
	writeTweets(t, input, 3)
	for _, args := range [][]string{
		{"query", "count", "--cassandra", srv.Addr(), "--keyspace", "nope"},
		{"index", "--input", input, "--cassandra", srv.Addr(), "--keyspace", "nope", "--progress", "0"},
	} {
		code, _, errOut := runCLI(t, args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 1 || !strings.Contains(lines[0], "does not exist") || !strings.Contains(lines[len(lines)-1], "tweetindex schema apply") {
			t.Errorf("%q: exit %d, stderr %q; want exit 1, Cassandra's complaint first and the schema apply hint", args, code, errOut)
		}
	}
}
