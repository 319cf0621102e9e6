package job

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/testdata/gen/tweetgen"
)

var (
	benchTweets = flag.Int("bench.tweets", 100_000, "tweets BenchmarkIndexCommand generates and indexes")
	benchShapes = flag.String("bench.shapes", "1000000@1h,1000000@720h,3000000@72h", "BenchmarkScale's inputs: comma-separated TWEETS@SPAN")
	benchRuns   = flag.Int("bench.runs", 3, "how many times BenchmarkIndexCommand indexes the tweets; it reports the median run")
	benchIncr   = flag.String("bench.incremental", "1000000@240h", "BenchmarkScale's runs into a store that holds tweets: comma-separated TWEETS@SPAN (none: empty)")
)

// BenchmarkIndexCommand times `bin/tweetindex index` end to end, as a user
// runs it, on generated realistic v1.1 tweets (make bench), -bench.runs
// times into fresh stores. It reports the median run's tweets/s and peak
// resident memory: one run on a shared 2-core machine varies by 10 % or
// so.
func BenchmarkIndexCommand(b *testing.B) {
	bin := buildCommand(b)
	data := benchData(b, fmt.Sprintf("tweets-%d", *benchTweets), *benchTweets, 7, 0)
	warmInput(b, data)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var runs []indexResult
		for range max(*benchRuns, 1) {
			r := indexRun(b, bin, data)
			fmt.Printf("index: %d tweets read, %d indexed in %.2f s: %.0f tweets/s, peak memory %.0f MB\n", r.sum.Read, r.sum.Indexed, r.wall.Seconds(), r.rate(), r.peakMB)
			runs = append(runs, r)
		}
		slices.SortFunc(runs, func(x, y indexResult) int { return cmp.Compare(x.wall, y.wall) })
		m := runs[len(runs)/2]
		fmt.Printf("median of %d runs: %.2f s, %.0f tweets/s, peak memory %.0f MB (fastest %.0f, slowest %.0f tweets/s)\n",
			len(runs), m.wall.Seconds(), m.rate(), m.peakMB, runs[0].rate(), runs[len(runs)-1].rate())
		b.ReportMetric(m.rate(), "tweets/s")
		b.ReportMetric(m.peakMB, "peak-MB")
	}
}

// BenchmarkScale indexes each shape of -bench.shapes (TWEETS@SPAN: that
// many generated tweets, seed 5, spread over SPAN) into a fresh store with
// `bin/tweetindex index` and prints a line per shape: tweets/s, CPU
// microseconds per tweet (user+sys), peak RSS, the tail (seconds from
// the last tweet read to the end of the run, as issue 11 counts it) and
// its parts: the pipeline's (windows closing, the last tweets through the
// sinks), the bulk load's flush (Summary.FlushSeconds: the raw, term and
// authors tables written and ingested) and the compaction
// (Summary.CompactSeconds).
// make bench-scale runs it.
// The data is generated once into .bench/scale-TWEETS-SPAN.
func BenchmarkScale(b *testing.B) {
	bin := buildCommand(b)
	shapes := benchShapeList(b, "-bench.shapes", *benchShapes)
	var lines []string
	for _, sh := range shapes {
		name := fmt.Sprintf("scale-%d-%s", sh.n, strings.TrimSuffix(strings.TrimSuffix(sh.span.String(), "0s"), "0m"))
		data := benchData(b, name, sh.n, 5, sh.span)
		warmInput(b, data)
		b.ResetTimer()
		dir := tempDir(b)
		r := indexRunInto(b, bin, data, dir)
		b.StopTimer()
		checkExpected(b, filepath.Join(dir, "db"), data, r.sum)
		os.RemoveAll(dir)
		tail := r.sum.TailSeconds()
		pipeline := tail - r.sum.CompactSeconds - r.sum.FlushSeconds
		line := fmt.Sprintf("%9d %8s %9.1f s %8.0f %8.0f %7.0f MB %7.1f s (%4.1f%%) %7.1f s %7.1f s %9.1f s", sh.n, sh.span, r.wall.Seconds(), r.rate(),
			float64(r.cpu.Microseconds())/float64(r.sum.Read), r.peakMB, tail, 100*tail/r.sum.Seconds, pipeline, r.sum.FlushSeconds, r.sum.CompactSeconds)
		fmt.Println(line)
		lines = append(lines, line)
	}
	fmt.Println("\n                                                                          the tail's parts:")
	fmt.Println("   tweets     span      wall  tweets/s  CPU us/tweet  peak RSS       tail (of wall)   pipeline     flush  compaction")
	for _, l := range lines {
		fmt.Println(l)
	}
	var incr []string
	for _, sh := range benchShapeList(b, "-bench.incremental", *benchIncr) {
		incr = append(incr, incrementalShape(b, bin, sh.n, sh.span)...)
	}
	if len(incr) > 0 {
		fmt.Println("\nruns into a store that holds tweets, each beside a run of the same tweets into a fresh store:")
		fmt.Println("   tweets     span  run                                           wall  tweets/s  CPU us/tweet  peak RSS   of fresh")
		for _, l := range incr {
			fmt.Println(l)
		}
	}
}

// benchShape is a shape of generated tweets: n over span.
type benchShape struct {
	n    int
	span time.Duration
}

// benchShapeList parses the value of flag name: comma-separated
// TWEETS@SPAN, empty entries skipped.
func benchShapeList(b *testing.B, name, value string) []benchShape {
	var shapes []benchShape
	for _, f := range strings.Split(value, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, span, ok := strings.Cut(f, "@")
		count, err1 := strconv.Atoi(n)
		d, err2 := time.ParseDuration(span)
		if !ok || err1 != nil || err2 != nil || count <= 0 || d <= 0 {
			b.Fatalf("%s: %q is not TWEETS@SPAN (e.g. 1000000@720h)", name, f)
		}
		shapes = append(shapes, benchShape{count, d})
	}
	return shapes
}

// incrementalShape indexes, as daily backfills do, n tweets over span
// into a store that already holds n (seed 11: 2n tweets over twice span,
// the first half of the files its first span, the rest the next), and
// prints a line per run beside a run of the same tweets into a fresh
// store:
//
//   - the next span (new days) into the store of the first;
//   - the first span again (nothing new);
//   - n other tweets over the first span (seed 12: the same days, new
//     ids) into the store of the first.
//
// The store of the first two is checked against the generator's
// expectations for the 2n tweets (every table of one fresh run over both
// halves), and that of the third, table by table and cell by cell,
// against one fresh run over both inputs.
func incrementalShape(b *testing.B, bin string, n int, span time.Duration) []string {
	name := fmt.Sprintf("incr-%d-%s", n, strings.TrimSuffix(strings.TrimSuffix(span.String(), "0s"), "0m"))
	all := benchData(b, name, 2*n, 11, 2*span)
	other := benchData(b, name+"-other", n, 12, span)
	files, err := filepath.Glob(filepath.Join(all, "*.jsonl*"))
	if err != nil || len(files) < 2 {
		b.Fatalf("%s: %d files, want two or more: %v", all, len(files), err)
	}
	slices.Sort(files)
	tmp := tempDir(b)
	first := linkFiles(b, filepath.Join(tmp, "first"), "", files[:len(files)/2])
	next := linkFiles(b, filepath.Join(tmp, "next"), "", files[len(files)/2:])
	otherFiles, _ := filepath.Glob(filepath.Join(other, "*.jsonl*"))
	union := linkFiles(b, filepath.Join(tmp, "union"), "a-", files[:len(files)/2])
	linkFiles(b, union, "b-", otherFiles)
	warmInput(b, all)
	warmInput(b, other)

	var lines []string
	line := func(what string, r, fresh indexResult) {
		l := fmt.Sprintf("%9d %8s  %-42s %7.1f s %8.0f %8.0f %7.0f MB", r.sum.Read, span, what, r.wall.Seconds(), r.rate(),
			float64(r.cpu.Microseconds())/float64(r.sum.Read), r.peakMB)
		if fresh.wall > 0 {
			l += fmt.Sprintf("   %5.2fx", r.wall.Seconds()/fresh.wall.Seconds())
		}
		fmt.Println(l)
		lines = append(lines, l)
	}
	store := filepath.Join(tmp, "store")
	freshFirst := indexRunInto(b, bin, first, store)
	line("first span, fresh store", freshFirst, indexResult{})
	copyDir(b, filepath.Join(store, "db"), filepath.Join(tmp, "first-store", "db"))

	freshNext := indexRunInto(b, bin, next, filepath.Join(tmp, "fresh-next"))
	os.RemoveAll(filepath.Join(tmp, "fresh-next"))
	line("next span, fresh store", freshNext, indexResult{})
	line("next span (new days) into the first's store", indexRunInto(b, bin, next, store), freshNext)
	line("first span again (nothing new)", indexRunInto(b, bin, first, store), freshFirst)
	line("  (fresh run of the first span, above)", freshFirst, indexResult{})
	if err := compareTables(filepath.Join(store, "db"), filepath.Join(all, "EXPECTED.json")); err != nil {
		b.Fatalf("the store of both spans: %v", err)
	}
	fmt.Println("the store of both spans matches the generator's expectations for all their tweets")
	os.RemoveAll(store)

	freshOther := indexRunInto(b, bin, other, filepath.Join(tmp, "fresh-other"))
	os.RemoveAll(filepath.Join(tmp, "fresh-other"))
	line("other tweets of the first span, fresh store", freshOther, indexResult{})
	line("other tweets (same days, new ids) into it", indexRunInto(b, bin, other, filepath.Join(tmp, "first-store")), freshOther)
	indexRunInto(b, bin, union, filepath.Join(tmp, "union-store"))
	if err := compareStores(filepath.Join(tmp, "first-store", "db"), filepath.Join(tmp, "union-store", "db")); err != nil {
		b.Fatalf("first span, then other tweets of its days, against one run over both: %v", err)
	}
	fmt.Println("the store of the first span and then the other tweets equals one fresh run over both, cell for cell")
	return lines
}

// linkFiles links files into dir (created), each under prefix + its name,
// and returns dir.
func linkFiles(b *testing.B, dir, prefix string, files []string) string {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		if err := os.Symlink(f, filepath.Join(dir, prefix+filepath.Base(f))); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// buildCommand builds bin/tweetindex and returns its path.
func buildCommand(b *testing.B) string {
	root := repoRoot(b)
	bin := filepath.Join(root, "bin", "tweetindex")
	build := exec.Command("go", "build", "-o", bin, "./pipelines/cmd/tweetindex")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("build: %v", err)
	}
	return bin
}

// benchData generates n bench tweets (seed, spread over span; the
// generator's default hour if 0) into .bench/name, once, and returns the
// directory.
func benchData(b *testing.B, name string, n int, seed int, span time.Duration) string {
	root := repoRoot(b)
	data := filepath.Join(root, ".bench", name)
	if _, err := os.Stat(filepath.Join(data, "EXPECTED.json")); err == nil {
		return data
	}
	start := time.Now()
	e, size, err := tweetgen.WriteBench(context.Background(), tweetgen.BenchConfig{N: n, Seed: uint64(seed), Span: span, Out: data})
	if err != nil {
		b.Fatalf("generate: %v", err)
	}
	fmt.Printf("bench data: %d tweets, %.1f MB in %s (%.1f s)\n", e.Read, float64(size)/1e6, data, time.Since(start).Seconds())
	return data
}

// warmInput reads the tweets in data (the files the runs index) once
// before they are timed, so that every run reads its input from the page
// cache, as the README's figures say, whichever shape ran before it (the
// three shapes' 18 GB do not all stay cached beside the stores on a 24 GB
// machine). It prints how long the reading took: seconds where the input
// had to come from disk.
func warmInput(b *testing.B, data string) {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(data, "*.jsonl*"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no input in %s: %v", data, err)
	}
	start := time.Now()
	var n int64
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		m, err := io.Copy(io.Discard, f)
		f.Close()
		if err != nil {
			b.Fatalf("reading %s: %v", path, err)
		}
		n += m
	}
	fmt.Printf("input: %.0f MB read into the page cache in %.1f s\n", float64(n)/1e6, time.Since(start).Seconds())
}

// indexResult is what one run of the index command measured.
type indexResult struct {
	sum    Summary
	wall   time.Duration
	cpu    time.Duration // user + sys
	peakMB float64
}

func (r indexResult) rate() float64 { return float64(r.sum.Read) / r.wall.Seconds() }

// indexRun indexes the JSON lines in data into a fresh store with bin.
func indexRun(b *testing.B, bin, data string) indexResult {
	return indexRunInto(b, bin, data, tempDir(b))
}

// indexRunInto is indexRun into the store in store/db (made if it is not there).
func indexRunInto(b *testing.B, bin, data, store string) indexResult {
	if err := os.MkdirAll(store, 0o755); err != nil {
		b.Fatal(err)
	}
	summaryPath := filepath.Join(store, "summary.json")
	cmd := exec.Command(bin, "index", "--input", filepath.Join(data, "*.jsonl*"), "--store", filepath.Join(store, "db"), "--summary", summaryPath, "--progress", "0")
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("index: %v\n%s", err, out)
	}
	var r indexResult
	raw, err := os.ReadFile(summaryPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &r.sum); err != nil {
		b.Fatal(err)
	}
	if !r.sum.Reconciles() || r.sum.Read == 0 {
		b.Fatalf("summary does not reconcile: %+v", r.sum)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.wall = wall
	r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r.peakMB = float64(ru.Maxrss) / 1024
	return r
}

// checkExpected compares the store in dir, and the summary of the run that
// wrote it, with the generator's expectations for data (EXPECTED.json),
// and prints one line when they match (compareExpected).
func checkExpected(tb testing.TB, dir, data string, sum Summary) {
	tb.Helper()
	line, err := compareExpected(dir, filepath.Join(data, "EXPECTED.json"), sum)
	if err != nil {
		tb.Fatal(err)
	}
	fmt.Println(line)
}

// compareExpected compares the store in dir and the summary of the run
// that wrote it with the generator's expectations (the file expected: a
// data set's EXPECTED.json, or testdata/expected/sample.json): the
// summary's counts; the rows of the raw, geo, frequency and dead-letter
// tables, in the tables and in the summary; every frequency cell; and the
// rows of each term the generator counts. It returns the first difference
// as an error.
func compareExpected(dir, expected string, sum Summary) (string, error) {
	raw, err := os.ReadFile(expected)
	if err != nil {
		return "", err
	}
	var want tweetgen.Expected
	if err := json.Unmarshal(raw, &want); err != nil {
		return "", fmt.Errorf("%s: %w", expected, err)
	}
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"read", sum.Read, want.Read},
		{"indexed", sum.Indexed, want.Indexed},
		{"duplicates", sum.Duplicates, want.Duplicates},
		{"skipped", sum.Skipped, want.Skipped},
		{"dead_lettered", sum.DeadLettered, want.DeadLettered},
	} {
		if c.got != c.want {
			return "", fmt.Errorf("summary: %s %d, the generator expects %d", c.name, c.got, c.want)
		}
	}
	got, err := compareTablesTo(dir, want, sum.Rows)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("tables match the generator's expectations: raw %d, geo %d, frequency %d, deadletter %d rows; %d terms' rows",
		got["raw"], got["geo"], got["frequency"], got["deadletter"], len(want.Terms)), nil
}

// compareTables compares the tables of the store in dir with the
// generator's expectations (the file expected), as compareExpected does,
// but not the summary: for a store that several runs wrote.
func compareTables(dir, expected string) error {
	raw, err := os.ReadFile(expected)
	if err != nil {
		return err
	}
	var want tweetgen.Expected
	if err := json.Unmarshal(raw, &want); err != nil {
		return fmt.Errorf("%s: %w", expected, err)
	}
	_, err = compareTablesTo(dir, want, nil)
	return err
}

// compareTablesTo compares the store in dir with want (and, if rows is
// not nil, with the rows a run's summary says it wrote) and returns the
// rows of the tables it counted.
func compareTablesTo(dir string, want tweetgen.Expected, rows map[string]int64) (map[string]int64, error) {
	tables, err := sink.Open(sink.Config{Store: dir})
	if err != nil {
		return nil, err
	}
	defer tables.Close()
	ctx := context.Background()
	got := map[string]int64{}
	for _, table := range []schemas.Table{schemas.TableRaw, schemas.TableGeo, schemas.TableFrequency, schemas.TableDeadLetter} {
		var n int64
		err := tables.Scan(ctx, table, nil, nil, func(key, value []byte) error {
			n++
			if table == schemas.TableFrequency {
				r, err := schemas.DecodeFrequency(key, value)
				if err != nil {
					return err
				}
				if w := want.Frequency[r.Minute+"/"+r.Lang]; w != r.Count {
					return fmt.Errorf("frequency %s/%s = %d, the generator expects %d", r.Minute, r.Lang, r.Count, w)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if n != want.Rows[table.Name()] || (rows != nil && n != rows[table.Name()]) {
			return nil, fmt.Errorf("%s: %d rows in the table, %d in the summary, the generator expects %d", table.Name(), n, rows[table.Name()], want.Rows[table.Name()])
		}
		got[table.Name()] = n
	}
	for _, ft := range slices.Sorted(maps.Keys(want.Terms)) {
		field, term, _ := strings.Cut(ft, "/")
		var n int64
		if err := sink.ScanPrefix(ctx, tables, schemas.TableTerms, schemas.TermPrefix(term, field), func(_, _ []byte) error { n++; return nil }); err != nil {
			return nil, err
		}
		if n != want.Terms[ft] {
			return nil, fmt.Errorf("terms: %d rows of %s, the generator expects %d", n, ft, want.Terms[ft])
		}
	}
	return got, nil
}

// compareStores compares the stores in dirs a and b table by table, cell
// by cell (keys and values), but for the metadata table, whose run
// records differ, of which it compares the collision records. It returns
// the first difference.
func compareStores(a, b string) error {
	sa, err := sink.Open(sink.Config{Store: a})
	if err != nil {
		return err
	}
	defer sa.Close()
	sb, err := sink.Open(sink.Config{Store: b})
	if err != nil {
		return err
	}
	defer sb.Close()
	ctx := context.Background()
	for _, table := range schemas.Tables {
		var lo, hi []byte
		if table == schemas.TableMeta {
			lo = []byte(schemas.CollisionPrefix)
			hi = append([]byte(schemas.CollisionPrefix), 0xff)
		}
		type cell struct{ k, v []byte }
		next, stop := iter.Pull2(func(yield func(cell, error) bool) {
			err := sb.Scan(ctx, table, lo, hi, func(k, v []byte) error {
				if !yield(cell{bytes.Clone(k), bytes.Clone(v)}, nil) {
					return errStop
				}
				return nil
			})
			if err != nil && !errors.Is(err, errStop) {
				yield(cell{}, err)
			}
		})
		var n int64
		err := sa.Scan(ctx, table, lo, hi, func(k, v []byte) error {
			c, err, ok := next()
			switch {
			case err != nil:
				return err
			case !ok:
				return fmt.Errorf("%s: %s has cell %x, %s has no more (after %d)", table.Name(), a, k, b, n)
			case !bytes.Equal(c.k, k) || !bytes.Equal(c.v, v):
				return fmt.Errorf("%s: cell %d is %x=%.40q in %s, %x=%.40q in %s", table.Name(), n, k, v, a, c.k, c.v, b)
			}
			n++
			return nil
		})
		if err == nil {
			if c, cerr, ok := next(); cerr != nil {
				err = cerr
			} else if ok {
				err = fmt.Errorf("%s: %s has cell %x, %s has no more (after %d)", table.Name(), b, c.k, a, n)
			}
		}
		stop()
		if err != nil {
			return err
		}
	}
	return nil
}
