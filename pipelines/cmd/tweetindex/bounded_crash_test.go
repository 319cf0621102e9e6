package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/testdata/gen/tweetgen"
)

// againLines returns, for the first n+d tweets of the bench file path,
// n of them collected again with other bytes (one more field: another row
// key, a version of the same id) and delete notices of the d after them.
func againLines(t *testing.T, path string, n, d int) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idRE := regexp.MustCompile(`"id_str":"(\d+)"`)
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; sc.Scan() && i < n+d; i++ {
		line := sc.Bytes()
		if i < n {
			out.Write(line[:len(line)-1])
			fmt.Fprintf(&out, `,"collected_again":%d}`+"\n", i)
			continue
		}
		id := idRE.FindSubmatch(line)
		if id == nil {
			t.Fatalf("no id_str in %.200s", line)
		}
		fmt.Fprintf(&out, `{"delete":{"status":{"id":%s,"id_str":"%s","user_id":1,"user_id_str":"1"},"timestamp_ms":"1793534410000"}}`+"\n", id[1], id[1])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// benchInput writes n generated bench tweets (seed, files of 10,000, 1%
// repeated) into dir, and, if again, a file (sorting first) of 300 of the
// first file's tweets collected again and delete notices of 100 others
// (againLines) of the bench file from, or of dir's own first file if from
// is empty.
func benchInput(t *testing.T, dir string, n int, seed uint64, from string) string {
	t.Helper()
	if _, _, err := tweetgen.WriteBench(context.Background(), tweetgen.BenchConfig{N: n, Seed: seed, Out: dir}); err != nil {
		t.Fatal(err)
	}
	if from == "" {
		from = filepath.Join(dir, "tweets-000.jsonl")
	}
	if err := os.WriteFile(filepath.Join(dir, "again.jsonl"), againLines(t, from, 300, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "*.jsonl")
}

// sstFiles counts the sorted tables of the store in dir.
func sstFiles(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	return len(m)
}

// killPoint is when TestKilledBoundedRunRunAgain kills a run: once wait,
// watching the run's output and its store, returns; or, with crash set,
// where the run exits by itself (storeio.BeforeIngest, set by TestMain).
type killPoint struct {
	name  string
	wait  func(t *testing.T, c *cli, store string)
	crash string
}

// crashEnv, in the environment of a command started by startCLI, names
// the ingestion of the bulk load's end ("base" or "tables") before which
// the command exits with status crashExit, as a crash would there:
// TestMain sets storeio.BeforeIngest to a function that does.
const crashEnv = "TWEETINDEX_TEST_CRASH_BEFORE_INGEST"

// crashExit is the status of a command that crashEnv made exit.
const crashExit = 9

// until polls cond every 10 ms while c runs (it prints a progress line
// every 50 ms), and fails the test if c ends first.
func (c *cli) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		select {
		case err := <-c.done:
			t.Fatalf("the run ended (%v) before %s\nstderr:\n%s", err, what, c.stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("not %s after 3 minutes\nstderr:\n%s", what, c.stderr)
		}
	}
}

var (
	killReading = killPoint{name: "reading", wait: func(t *testing.T, c *cli, _ string) { c.waitRead(t, 2000, 3*time.Minute) }}
	// A memtable flush (a new table file in the store) has put part of
	// the run's raw and identity rows on disk, and in a store that held
	// tweets, the removals of their earlier versions made so far.
	killFlushed = killPoint{name: "a memtable flushed", wait: func(t *testing.T, c *cli, store string) {
		c.waitRead(t, 0, 3*time.Minute) // the run's record and parameters are on disk by now
		base := sstFiles(store)
		c.until(t, "a table file is written", func() bool { return sstFiles(store) > base })
	}}
	killAllRead = killPoint{name: "everything read", wait: func(t *testing.T, c *cli, _ string) {
		c.until(t, "everything is read", func() bool {
			out := c.stderr.String()
			return strings.Contains(out, "[writing]") || strings.Contains(out, "[closing windows, flushing]") || strings.Contains(out, "[writing the raw, term and authors tables")
		})
	}}
	// The load's base: the sorted cells spilled by the time most of the
	// input is read, merged into tables while the run reads on, to be
	// ingested at the end, before the end's own.
	killBase = killPoint{name: "base tables written", wait: func(t *testing.T, c *cli, store string) {
		c.until(t, "a table of the base is written", func() bool {
			m, _ := filepath.Glob(filepath.Join(store, "bulk-load", "base-*"))
			return len(m) > 0
		})
	}}
	// The end of a load with a base, which ingests the base's tables, then
	// its own: the run dies before the first ingestion (its memtable on
	// disk, the plan of the two saved) or between the two. The store's
	// next opener completes them.
	crashBeforeBase   = killPoint{name: "before the base's ingestion", crash: "base"}
	crashBeforeTables = killPoint{name: "between the ingestions", crash: "tables"}
	// The load's end: the sorted term and authors cells written as
	// tables, to be ingested before the memtable is flushed (the kill
	// lands before or after the ingestion).
	killSorted = killPoint{name: "sorted tables written", wait: func(t *testing.T, c *cli, store string) {
		c.until(t, "a sorted table is written", func() bool {
			m, _ := filepath.Glob(filepath.Join(store, "bulk-load", "table-*"))
			return len(m) > 0
		})
	}}
)

// TestKilledBoundedRunRunAgain kills a bounded run (files into the
// embedded store, which a bounded run loads without a write-ahead log and
// whose term and authors cells it sorts aside and ingests at its end)
// with SIGKILL, at points found by what the run shows (killPoint), and
// runs the same input again into the same store: every table (raw, terms,
// frequency, geo, dead letters, identity, authors) must then hold, cell
// for cell, what one clean run leaves, and the summary must reconcile.
// Into a fresh store (30,000 generated tweets, 300 of them collected
// again with other bytes and 100 deleted), and into the store of that
// run, by a run of 20,000 other tweets that replaces 300 of the first
// run's (other versions) and deletes 100 (compliance notices).
func TestKilledBoundedRunRunAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) kills bounded runs of generated tweets with SIGKILL at several points, runs them again and compares the tables with one clean run's")
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	firstInput := benchInput(t, first, 30_000, 12, "")
	// A later run: other tweets, and 300 of the first run's collected
	// again and 100 deleted.
	laterInput := benchInput(t, filepath.Join(dir, "later"), 20_000, 13, filepath.Join(first, "tweets-001.jsonl"))
	clean := map[string]string{} // input -> the store of its clean run

	index := func(t *testing.T, store, input string) (*cli, string) {
		sum := store + ".summary.json"
		return startCLI(t, "index", "--input", input, "--store", store, "--progress", "50ms", "--summary", sum), sum
	}
	indexed := func(t *testing.T, store, input string) job.Summary {
		t.Helper()
		c, path := index(t, store, input)
		if code := c.wait(t, 5*time.Minute); code != 0 {
			t.Fatalf("run of %s into %s: exit %d\nstderr:\n%s", input, store, code, c.stderr)
		}
		var s job.Summary
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &s)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !s.Reconciles() {
			t.Errorf("run of %s: read %d != indexed %d + duplicates %d + skipped %d + dead_lettered %d", input, s.Read, s.Indexed, s.Duplicates, s.Skipped, s.DeadLettered)
		}
		return s
	}

	for _, sc := range []struct {
		name  string
		prior string // input indexed into the store before ("": a fresh store)
		input string // the run killed and run again
		kills []killPoint
	}{
		{"fresh store", "", firstInput, []killPoint{killReading, killFlushed, killBase, killAllRead, killSorted, crashBeforeBase, crashBeforeTables}},
		{"store holding a run", firstInput, laterInput, []killPoint{killFlushed, killBase, killAllRead, killSorted, crashBeforeBase, crashBeforeTables}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			base := filepath.Join(dir, strings.ReplaceAll(sc.name, " ", "-"))
			prior := ""
			if sc.prior != "" {
				if prior = clean[sc.prior]; prior == "" { // run alone (-run)
					prior = base + "-prior"
					indexed(t, prior, sc.prior)
				}
			}
			// from returns a store holding what the prior run left.
			from := func(t *testing.T, name string) string {
				store := base + "-" + strings.ReplaceAll(name, " ", "-")
				if prior != "" {
					if err := os.CopyFS(store, os.DirFS(prior)); err != nil {
						t.Fatal(err)
					}
				}
				return store
			}
			ref := from(t, "clean")
			wantSum := indexed(t, ref, sc.input)
			if prior == "" {
				clean[sc.input] = ref
			}
			if wantSum.Retracted == 0 {
				t.Fatalf("clean run: %+v: want versions retracted", wantSum)
			}
			want := dumpAll(t, ref)
			for _, kp := range sc.kills {
				t.Run(kp.name, func(t *testing.T) {
					store := from(t, kp.name)
					if kp.crash != "" {
						os.Setenv(crashEnv, kp.crash) // for this command only
					}
					c, _ := index(t, store, sc.input)
					os.Unsetenv(crashEnv)
					if kp.crash != "" {
						if code := c.wait(t, 5*time.Minute); code != crashExit {
							t.Fatalf("run with %s=%s: exit %d, want %d (no base? its end did not reach the ingestion)\nstderr:\n%s", crashEnv, kp.crash, code, crashExit, c.stderr)
						}
					} else {
						kp.wait(t, c, store)
						if err := c.cmd.Process.Kill(); err != nil {
							t.Fatal(err)
						}
						c.wait(t, 30*time.Second)
					}
					t.Logf("killed at %q after %d tweets read: %d table files on disk", kp.name, c.readSoFar(), sstFiles(store))
					sum := indexed(t, store, sc.input)
					t.Logf("run again: read %d, indexed %d, duplicates %d, skipped %v, retracted %d, recounted %d (clean run: indexed %d, skipped %v, retracted %d)",
						sum.Read, sum.Indexed, sum.Duplicates, sum.SkippedBy, sum.Retracted, sum.Recounted, wantSum.Indexed, wantSum.SkippedBy, wantSum.Retracted)
					sameTables(t, want, dumpAll(t, store), []string{"raw", "terms", "frequency", "geo", "deadletter", "identity", "authors"}, "clean run", "killed and run again")
				})
			}
		})
	}
}
