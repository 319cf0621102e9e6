package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/schemas"
)

// crashPartitions is the partition count of the crash test's topic.
const crashPartitions = 4

// sampleValues returns the records of testdata/sample as Kafka values,
// file by file in name order, leaving out the damaged ones (a truncated
// compressed member has no Kafka counterpart).
func sampleValues(t *testing.T) [][]byte {
	t.Helper()
	files, err := archiveio.Expand("../../../testdata/sample/*")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, f := range files {
		_, err := archiveio.ReadFile(context.Background(), f, archiveio.Options{}, func(batch []schemas.Record) error {
			for _, r := range batch {
				if r.Fault == "" {
					out = append(out, bytes.Clone(r.Data))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// produceSpread produces values to topic, value i to partition (first+i)
// mod crashPartitions.
func produceSpread(t *testing.T, addr, topic string, values [][]byte, first int) {
	t.Helper()
	parts := make([][][]byte, crashPartitions)
	for i, v := range values {
		p := (first + i) % crashPartitions
		parts[p] = append(parts[p], v)
	}
	for p, vs := range parts {
		if len(vs) > 0 {
			kafkatest.Produce(t, addr, topic, p, vs)
		}
	}
}

// groupOffsets returns the committed offset of each partition of topic
// for group (-1: none).
func groupOffsets(addr, group, topic string) ([]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &kafka.Client{Addr: kafka.TCP(addr), Timeout: 10 * time.Second}
	parts := make([]int, crashPartitions)
	for p := range parts {
		parts[p] = p
	}
	res, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: parts}})
	if err != nil {
		return nil, err
	}
	out := make([]int64, crashPartitions)
	for _, p := range res.Topics[topic] {
		out[p.Partition] = p.CommittedOffset
	}
	return out, nil
}

// waitGroupCommitted waits until group has committed n records of topic
// in all.
func waitGroupCommitted(t *testing.T, c *cli, addr, group, topic string, n int64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var got []int64
	for time.Now().Before(deadline) {
		var err error
		if got, err = groupOffsets(addr, group, topic); err == nil {
			var sum int64
			for _, o := range got {
				sum += max(o, 0)
			}
			if sum >= n {
				return
			}
		}
		select {
		case err := <-c.done:
			t.Fatalf("exited before committing %d records (%v)\nstderr:\n%s", n, err, c.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("group %s committed %v after %v, want %d records", group, got, timeout, n)
}

var progressRowsRE = regexp.MustCompile(`progress [^\n]* (\d+) rows written`)

// waitRowsWritten waits until a progress line says at least n rows were
// written.
func (c *cli) waitRowsWritten(t *testing.T, n int64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, m := range progressRowsRE.FindAllStringSubmatch(c.stderr.String(), -1) {
			if got, _ := strconv.ParseInt(m[1], 10, 64); got >= n {
				return
			}
		}
		select {
		case err := <-c.done:
			t.Fatalf("exited before writing %d rows (%v)\nstderr:\n%s", n, err, c.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("not %d rows written after %v\nstderr:\n%s", n, timeout, c.stderr)
}

var progressReadRE = regexp.MustCompile(`progress [^\n]* (\d+) tweets read`)

// waitRead waits until a progress line says more than n items were read.
func (c *cli) waitRead(t *testing.T, n int, timeout time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, m := range progressReadRE.FindAllStringSubmatch(c.stderr.String(), -1) {
			if got, _ := strconv.Atoi(m[1]); got > n {
				return got
			}
		}
		select {
		case err := <-c.done:
			t.Fatalf("exited before reading %d items (%v)\nstderr:\n%s", n, err, c.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("not %d items read after %v\nstderr:\n%s", n, timeout, c.stderr)
	return 0
}

// dumpAll dumps every table of the store in dir but meta.
func dumpAll(t *testing.T, dir string) map[string]string {
	t.Helper()
	tables, err := sink.Open(sink.Config{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	out := map[string]string{}
	for _, table := range []schemas.Table{schemas.TableRaw, schemas.TableTerms, schemas.TableFrequency, schemas.TableGeo, schemas.TableDeadLetter, schemas.TableIdentity, schemas.TableAuthors} {
		var b bytes.Buffer
		if _, err := dump(context.Background(), tables, table, &b); err != nil {
			t.Fatal(err)
		}
		out[table.Name()] = b.String()
	}
	return out
}

// TestKilledStreamResumesToOneRun streams the sample from a Kafka topic
// through the real command with --group G --commit, kills it with SIGKILL
// while it reads (after it has read, committed and written the first half,
// and read some of the second, produced after that), resumes it with --start
// group, and checks that the tables (raw, terms, frequency, geo, dead
// letters, identity) equal those of one uninterrupted run over the same
// topic: the records read after the last commit are read again, their
// tweets are known to the identity table, and the minutes they touch are
// recounted from the raw table.
func TestKilledStreamResumesToOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) kills a streaming run with SIGKILL, resumes it and compares its tables with one run's")
	}
	const topic = "tweets"
	values := sampleValues(t)
	half := len(values) / 2
	addr := kafkatest.StartBroker(t, map[string]int{topic: crashPartitions})
	dir := t.TempDir()
	store := filepath.Join(dir, "store")

	// The rows the first half makes, indexed on its own.
	firstHalf := filepath.Join(dir, "first-half.jsonl")
	if err := os.WriteFile(firstHalf, append(bytes.Join(values[:half], []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	halfSum, err := job.Run(context.Background(), pipelines.Config{Input: firstHalf, Store: filepath.Join(dir, "half")})
	if err != nil {
		t.Fatal(err)
	}
	var halfRows int64
	for _, n := range halfSum.Rows {
		halfRows += n
	}

	produceSpread(t, addr, topic, values[:half], 0)
	c := startCLI(t, "index", "--kafka", addr, "--topic", topic, "--group", "g", "--commit", "--store", store,
		"--progress", "50ms", "--kafka-checkpoint", "10s")
	c.waitRead(t, half-1, 2*time.Minute)
	waitGroupCommitted(t, c, addr, "g", topic, int64(half), 2*time.Minute)
	// Every row of the first half written (its counts included), so that
	// the kill finds only records read since the last commit in flight:
	// records committed and not yet written are lost by a kill (see
	// README, Delivery), which this test does not cover.
	c.waitRowsWritten(t, halfRows, 2*time.Minute)
	produceSpread(t, addr, topic, values[half:], half)
	read := c.waitRead(t, half, 2*time.Minute)
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.wait(t, 30*time.Second)
	committed, err := groupOffsets(addr, "g", topic)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, o := range committed {
		sum += max(o, 0)
	}
	t.Logf("killed after %d of %d records read; offsets committed %v (%d records): %d read again on resume", read, len(values), committed, sum, int64(read)-sum)
	if sum >= int64(len(values)) {
		t.Logf("every record was committed before the kill: the resume reads none again")
	}

	resumed := startCLI(t, "index", "--kafka", addr, "--topic", topic, "--group", "g", "--start", "group", "--commit", "--stop", "latest",
		"--store", store, "--progress", "0")
	if code := resumed.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("resumed run: exit %d\nstdout:\n%s\nstderr:\n%s", code, resumed.stdout, resumed.stderr)
	}

	ref := filepath.Join(dir, "ref")
	one := startCLI(t, "index", "--kafka", addr, "--topic", topic, "--group", "ref", "--start", "earliest", "--commit", "--stop", "latest",
		"--store", ref, "--progress", "0")
	if code := one.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\nstderr:\n%s", code, one.stderr)
	}

	sameTables(t, dumpAll(t, ref), dumpAll(t, store), []string{"raw", "terms", "frequency", "geo", "deadletter", "identity"}, "one run", "resumed")
	if t.Failed() {
		t.Logf("resumed run:\n%s", resumed.stdout)
	}
}

// committedSum returns the records group has committed on topic in all.
func committedSum(t *testing.T, addr, group, topic string) int64 {
	t.Helper()
	got, err := groupOffsets(addr, group, topic)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, o := range got {
		sum += max(o, 0)
	}
	return sum
}

// readSoFar returns the most items a progress line of c says were read.
func (c *cli) readSoFar() int {
	n := 0
	for _, m := range progressReadRE.FindAllStringSubmatch(c.stderr.String(), -1) {
		if got, _ := strconv.Atoi(m[1]); got > n {
			n = got
		}
	}
	return n
}

// TestKilledAnywhereLosesNothing kills the real command streaming the
// sample from Kafka with --commit at points that do not wait for the sinks.
// The sample is produced in eight chunks, the next once the command has
// read the last, and the command is killed as soon as the group's first
// offset is committed, once half the records are committed, or once a
// third is read whatever is committed, records still being read and
// written. Offsets are committed only after the sinks wrote (or dropped)
// every record before them, so a resume with --start group reads again
// every record whose rows a kill could have lost: the resumed run's counts
// reconcile, it reads at least the records not committed at the kill, all
// offsets end committed, and the tables equal one uninterrupted run's.
func TestKilledAnywhereLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) kills a committing stream at three points without waiting for its writes, resumes it and compares its tables with one run's")
	}
	values := sampleValues(t)
	const chunks = 8
	dir := t.TempDir()

	var want map[string]string
	const topic = "tweets" // on a broker of each kill point's own
	for _, kp := range []struct {
		name string
		kill func(c *cli, committed int64) bool
	}{
		{"first-commit", func(_ *cli, committed int64) bool { return committed > 0 }},
		{"half-committed", func(_ *cli, committed int64) bool { return committed >= int64(len(values)/2) }},
		{"third-read", func(c *cli, _ int64) bool { return c.readSoFar() > len(values)/3 }},
	} {
		t.Run(kp.name, func(t *testing.T) {
			addr := kafkatest.StartBroker(t, map[string]int{topic: crashPartitions})
			store := filepath.Join(dir, kp.name)
			const group = "g"
			c := startCLI(t, "index", "--kafka", addr, "--topic", topic, "--group", group, "--commit", "--store", store, "--progress", "20ms")
			produced, killed := 0, false
			deadline := time.Now().Add(2 * time.Minute)
			for !killed {
				if c.readSoFar() >= produced && produced < len(values) {
					next := min(len(values), produced+(len(values)+chunks-1)/chunks)
					produceSpread(t, addr, topic, values[produced:next], produced)
					produced = next
				}
				committed := committedSum(t, addr, group, topic)
				if killed = kp.kill(c, committed); killed {
					if err := c.cmd.Process.Kill(); err != nil {
						t.Fatal(err)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("kill point not reached after 2 minutes: %d produced, %d committed\nstderr:\n%s", produced, committed, c.stderr)
				}
				select {
				case err := <-c.done:
					t.Fatalf("exited before the kill (%v)\nstderr:\n%s", err, c.stderr)
				case <-time.After(10 * time.Millisecond):
				}
			}
			c.wait(t, 30*time.Second)
			committed := committedSum(t, addr, group, topic)
			read := c.readSoFar()
			produceSpread(t, addr, topic, values[produced:], produced)

			sumFile := filepath.Join(dir, kp.name+".json")
			resumed := startCLI(t, "index", "--kafka", addr, "--topic", topic, "--group", group, "--start", "group", "--commit", "--stop", "latest",
				"--store", store, "--progress", "0", "--summary", sumFile)
			if code := resumed.wait(t, 2*time.Minute); code != 0 {
				t.Fatalf("resumed run: exit %d\nstdout:\n%s\nstderr:\n%s", code, resumed.stdout, resumed.stderr)
			}
			var sum job.Summary
			data, err := os.ReadFile(sumFile)
			if err == nil {
				err = json.Unmarshal(data, &sum)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("killed with %d records produced, %d items read, %d records committed; the resume read %d items (indexed %d, duplicates %d, skipped %d, dead letters %d)",
				produced, read, committed, sum.Read, sum.Indexed, sum.Duplicates, sum.Skipped, sum.DeadLettered)
			if !sum.Reconciles() {
				t.Errorf("resumed run: read %d != indexed %d + duplicates %d + skipped %d + dead_lettered %d", sum.Read, sum.Indexed, sum.Duplicates, sum.Skipped, sum.DeadLettered)
			}
			if left := int64(len(values)) - committed; sum.Read < left {
				t.Errorf("resumed run read %d items, fewer than the %d records not committed at the kill", sum.Read, left)
			}
			if end := committedSum(t, addr, group, topic); end != int64(len(values)) {
				t.Errorf("after the resume %d records committed, want %d", end, len(values))
			}

			if want == nil {
				ref := filepath.Join(dir, "ref")
				one := startCLI(t, "index", "--kafka", addr, "--topic", topic, "--group", "ref", "--start", "earliest", "--commit", "--stop", "latest",
					"--store", ref, "--progress", "0")
				if code := one.wait(t, 2*time.Minute); code != 0 {
					t.Fatalf("uninterrupted run: exit %d\nstderr:\n%s", code, one.stderr)
				}
				want = dumpAll(t, ref)
			}
			got := dumpAll(t, store)
			for _, name := range []string{"raw", "terms", "frequency", "geo", "deadletter", "identity"} {
				if want[name] != got[name] {
					t.Errorf("table %s: one run %d rows, killed and resumed %d", name, strings.Count(want[name], "\n"), strings.Count(got[name], "\n"))
				}
			}
		})
	}
}

// sameTables reports, for each table of names whose dumps differ between
// want and got (dumpAll), the first row that differs.
func sameTables(t *testing.T, want, got map[string]string, names []string, wantName, gotName string) {
	t.Helper()
	for _, name := range names {
		if want[name] == got[name] {
			continue
		}
		wl, gl := strings.Split(want[name], "\n"), strings.Split(got[name], "\n")
		for i := 0; i < max(len(wl), len(gl)); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Errorf("table %s differs at row %d (%s %d rows, %s %d):\n%s: %.300s\n%s: %.300s", name, i+1, wantName, len(wl)-1, gotName, len(gl)-1, wantName, w, gotName, g)
				break
			}
		}
	}
}
