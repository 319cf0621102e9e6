package job

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// v1Delete returns a v1.1 delete notice for id.
func v1Delete(id uint64) string {
	return fmt.Sprintf(`{"delete":{"status":{"id":%d,"id_str":"%d","user_id":1,"user_id_str":"1"},"timestamp_ms":"1793000000000"}}`, id, id)
}

// v2Delete returns a v2 compliance event deleting id.
func v2Delete(id uint64) string {
	return fmt.Sprintf(`{"id":"%d","action":"delete","created_at":"2026-11-02T00:00:00.000Z","reason":"deleted"}`, id)
}

// deletePlacements are the places a delete notice takes relative to its
// tweet: after or before it in one file, or in a second file read after
// or before the first (files are read in name order).
var deletePlacements = []struct {
	name  string
	files func(tweets []string, del string) map[string][]string
}{
	{"after in the file", func(ts []string, del string) map[string][]string {
		return map[string][]string{"a.jsonl": append(slices.Clone(ts), del)}
	}},
	{"before in the file", func(ts []string, del string) map[string][]string {
		return map[string][]string{"a.jsonl": append([]string{del}, ts...)}
	}},
	{"in a file after", func(ts []string, del string) map[string][]string {
		return map[string][]string{"a.jsonl": ts, "b.jsonl": {del}}
	}},
	{"in a file before", func(ts []string, del string) map[string][]string {
		return map[string][]string{"a.jsonl": ts, "0.jsonl": {del}}
	}},
}

// writeFiles writes files (name -> lines) into a new directory and
// returns a glob of them.
func writeFiles(t *testing.T, files map[string][]string) string {
	t.Helper()
	dir := tempDir(t)
	for name, lines := range files {
		writeLines(t, filepath.Join(dir, name), lines...)
	}
	return filepath.Join(dir, "*")
}

// TestDeleteOfATweetWhoseIDTimeIsNotItsCreatedAt indexes four tweets and
// a delete notice for the first, whose id's Snowflake time (11:34) is not
// its created_at (12:00), or whose id carries no time at all (an id from
// before Snowflake), into fresh stores, runs times per placement of the
// notice (after or before the tweet in its file, in a second file read
// after or before): the tweet is deleted every time, and every run leaves
// the same tables, those of the three other tweets and the tombstone.
// Routing the delete by the time in its id once let the tweet survive in
// 8 to 19 runs of 20, depending on bundle boundaries.
func TestDeleteOfATweetWhoseIDTimeIsNotItsCreatedAt(t *testing.T) {
	t.Parallel()
	runs := 20
	if testing.Short() {
		runs = 3
	}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// An id time around 11:34 whose second is of another dedup shard than
	// 12:00:00, whatever the shard count (8 in process, 16 on a cluster):
	// keyed by that time, the delete and the tweet meet under no key.
	idTime := at.Add(-26 * time.Minute)
	for ; ; idTime = idTime.Add(time.Second) {
		a, b := idTime.Unix(), at.Unix()
		if transforms.ShardOfSecond(a, 8) != transforms.ShardOfSecond(b, 8) && transforms.ShardOfSecond(a, 16) != transforms.ShardOfSecond(b, 16) {
			break
		}
	}
	ids := map[string]uint64{
		"id time 11:34": snowflake(idTime, 7),
		"no id time":    123456789,
	}
	for name, first := range ids {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tweets := []string{v1Tweet(first, at, "deleted tweet words", 10, 10)}
			for i := 1; i < 4; i++ {
				sec := at.Add(time.Duration(i) * time.Second)
				tweets = append(tweets, v1Tweet(snowflake(sec, i), sec, fmt.Sprintf("kept tweet %d", i), 0, 0))
			}
			var want map[string]string
			for _, p := range deletePlacements {
				input := writeFiles(t, p.files(tweets, v1Delete(first)))
				for run := range runs {
					store := filepath.Join(tempDir(t), "store")
					runPipeline(t, pipelines.Config{Store: store, Input: input})
					dump := dumpStore(t, store)
					if got := storedIDs(t, dump); slices.Contains(got, fmt.Sprint(first)) {
						t.Fatalf("%s, run %d: the deleted tweet %d is stored", p.name, run+1, first)
					}
					if want == nil {
						want = dump
						if n := frequencyTotal(t, dump); n != 3 {
							t.Errorf("the frequency table counts %d tweets, want the 3 stored", n)
						}
						continue
					}
					diffTables(t, want, dump, "the first run", fmt.Sprintf("%s, run %d", p.name, run+1))
					if t.Failed() {
						t.FailNow()
					}
				}
			}
		})
	}
}

// TestOneIDOneStoredTweetWithinARun indexes two records of one tweet id
// whose created_at differ (a rewritten record), in one run, in either
// order and in one file or two: one raw row is stored, the one with the
// smaller row key (the rule for versions), counted once; forgetting the
// id then leaves no row of it.
func TestOneIDOneStoredTweetWithinARun(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	id := snowflake(at, 3)
	a := v1Tweet(id, at, "the tweet as created", 0, 0)
	b := v1Tweet(id, at.Add(-90*time.Minute), "the tweet rewritten", 0, 0)
	other := v1Tweet(snowflake(at.Add(time.Second), 1), at.Add(time.Second), "another tweet", 0, 0)
	wantKey := schemas.NewRowKey(at.Add(-90*time.Minute).Unix(), []byte(b)).String()
	var want map[string]string
	for i, files := range []map[string][]string{
		{"a.jsonl": {a, other, b}},
		{"a.jsonl": {b, other, a}},
		{"a.jsonl": {a, other}, "b.jsonl": {b}},
		{"a.jsonl": {b, other}, "b.jsonl": {a}},
	} {
		store := filepath.Join(tempDir(t), "store")
		sum := runPipeline(t, pipelines.Config{Store: store, Input: writeFiles(t, files)})
		if sum.Indexed != 2 {
			t.Errorf("order %d: %d indexed, want 2 (%+v)", i, sum.Indexed, sum)
		}
		dump := dumpStore(t, store)
		raws := rows(t, dump["raw"])
		if len(raws) != 2 {
			t.Fatalf("order %d: %d raw rows, want 2 (one per id):\n%s", i, len(raws), dump["raw"])
		}
		if !strings.Contains(dump["raw"], wantKey) {
			t.Errorf("order %d: the version with the smaller row key %s is not the one stored:\n%s", i, wantKey, dump["raw"])
		}
		if n := frequencyTotal(t, dump); n != 2 {
			t.Errorf("order %d: the frequency table counts %d tweets, want 2", i, n)
		}
		if want == nil {
			want = dump
		} else {
			diffTables(t, want, dump, "order 0", fmt.Sprintf("order %d", i))
		}
		if _, err := forget(t.Context(), pipelines.Config{Store: store}, maintain.IDList{IDs: []uint64{id}}); err != nil {
			t.Fatal(err)
		}
		after := dumpStore(t, store)
		if got := storedIDs(t, after); slices.Contains(got, fmt.Sprint(id)) {
			t.Errorf("order %d: forget left a raw row of %d: %v", i, id, got)
		}
		if n := frequencyTotal(t, after); n != 1 {
			t.Errorf("order %d: after forget the frequency table counts %d tweets, want 1", i, n)
		}
	}
}

// shuffledInput is one run's input of a shuffled mix: its files (name ->
// lines) and its archive batch size.
type shuffledInput struct {
	files map[string][]string
	batch int
}

// shuffle splits lines, in a random order, into one to three files read
// in batches of a random size (one record upwards), so that bundles split
// the mix anywhere.
func shuffle(r *rand.Rand, lines []string) shuffledInput {
	lines = slices.Clone(lines)
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	in := shuffledInput{files: map[string][]string{}, batch: 1 + r.IntN(len(lines))}
	n := 1 + r.IntN(3)
	for i, l := range lines {
		name := fmt.Sprintf("f%d.jsonl", i*n/len(lines))
		in.files[name] = append(in.files[name], l)
	}
	return in
}

// deletionMix returns a mix of tweets, copies, versions and deletions of
// ids with and without a time in them, whose tables after any order are
// those of the tweets that stay (the smaller row key of each id's
// versions); for each line the id of the tweet it is a version of (0 for
// a delete); and the ids that must not be stored.
func deletionMix() (lines []string, tweetIDs, deleted []uint64) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	type tweet struct {
		id      uint64
		created time.Time
	}
	var tweets []tweet
	for i := range 6 { // ids whose time is their created_at
		sec := at.Add(time.Duration(i*13) * time.Second)
		tweets = append(tweets, tweet{snowflake(sec, i), sec})
	}
	for i := range 4 { // ids whose time is not their created_at
		tweets = append(tweets, tweet{snowflake(at.Add(-time.Duration(i+1)*time.Hour), 9), at.Add(time.Duration(i*7) * time.Second)})
	}
	for i := range 4 { // ids without a time
		tweets = append(tweets, tweet{uint64(1000 + i), at.Add(time.Duration(i*11) * time.Second)})
	}
	add := func(id uint64, ls ...string) {
		for _, l := range ls {
			lines, tweetIDs = append(lines, l), append(tweetIDs, id)
		}
	}
	for i, tw := range tweets {
		line := v1Tweet(tw.id, tw.created, fmt.Sprintf("tweet %d words here", i), float64(i%3), float64(i%3))
		add(tw.id, line)
		if i%3 == 0 {
			add(tw.id, line) // a copy
		}
		if i%4 == 1 { // another version: other text, and another created_at for some
			created := tw.created
			if i%8 == 1 {
				created = created.Add(-47 * time.Minute)
			}
			add(tw.id, v1Tweet(tw.id, created, fmt.Sprintf("tweet %d rewritten", i), 0, 0))
		}
		switch i % 5 {
		case 0:
			add(0, v1Delete(tw.id))
			deleted = append(deleted, tw.id)
		case 2:
			add(0, v2Delete(tw.id), v1Delete(tw.id))
			deleted = append(deleted, tw.id)
		}
	}
	add(0, v1Delete(snowflake(at, 4000)), v2Delete(77)) // ids never stored
	return lines, tweetIDs, deleted
}

// splitRuns splits the mix into two runs at random, the versions of an id
// in one run (across runs the later run's version is stored, by design),
// deletes anywhere.
func splitRuns(r *rand.Rand, lines []string, tweetIDs []uint64) (first, second []string) {
	runOf := map[uint64]int{}
	for i, l := range lines {
		run, ok := runOf[tweetIDs[i]]
		if !ok || tweetIDs[i] == 0 {
			run = r.IntN(2)
			runOf[tweetIDs[i]] = run
		}
		if run == 0 {
			first = append(first, l)
		} else {
			second = append(second, l)
		}
	}
	return first, second
}

// TestDeletionsInAnyOrder indexes a mix of tweets, copies, versions
// (another created_at for some) and deletions (v1.1 notices and v2
// events), of ids with and without a time in them, in random orders,
// files and batch sizes, in one run or two (each line in either, the
// versions of an id together), or from Kafka (each line to a partition at
// random), into fresh sinks of both kinds: every order leaves the same
// tables, one raw row per id, none of a deleted id.
func TestDeletionsInAnyOrder(t *testing.T) {
	t.Parallel()
	trials := 8
	if testing.Short() {
		trials = 3
	}
	lines, tweetIDs, deleted := deletionMix()
	for _, kind := range sinkKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			newSink := kind.sinks(tempDir(t))
			r := rand.New(rand.NewPCG(37, uint64(len(kind.name))))
			var want map[string]string
			for trial := range trials {
				runs := [][]string{lines}
				if trial%2 == 1 {
					first, second := splitRuns(r, lines, tweetIDs)
					runs = [][]string{first, second}
				}
				cfg, dump := newSink(t, fmt.Sprintf("s%d", trial))
				var in shuffledInput
				for _, run := range runs {
					if len(run) == 0 {
						continue
					}
					in = shuffle(r, run)
					cfg.Shards = 1 + r.IntN(4)
					if trial%4 == 2 {
						// From Kafka: each line to a partition at random,
						// read in batches of a random size.
						topic := fmt.Sprintf("mix%d", trial)
						addr := kafkatest.StartBroker(t, map[string]int{topic: streamPartitions})
						parts := make([][][]byte, streamPartitions)
						for _, f := range slices.Sorted(maps.Keys(in.files)) {
							for _, l := range in.files[f] {
								p := r.IntN(streamPartitions)
								parts[p] = append(parts[p], []byte(l))
							}
						}
						for p, values := range parts {
							if len(values) > 0 {
								kafkatest.Produce(t, addr, topic, p, values)
							}
						}
						cfg.Kafka = &kafkaio.Config{Brokers: []string{addr}, Topic: topic, Start: "earliest", Stop: "latest", MaxBatchRecords: in.batch}
						runPipeline(t, cfg)
						continue
					}
					cfg.Input = writeFiles(t, in.files)
					cfg.Archive = archiveio.Options{BatchRecords: in.batch}
					runPipeline(t, cfg)
				}
				tables := dump()
				ids := storedIDs(t, tables)
				if len(slices.Compact(slices.Clone(ids))) != len(ids) {
					t.Fatalf("trial %d: an id has two raw rows: %v", trial, ids)
				}
				for _, id := range deleted {
					if slices.Contains(ids, fmt.Sprint(id)) {
						t.Fatalf("trial %d (%d runs, %d files, batches of %d, %d shards): deleted tweet %d is stored", trial, len(runs), len(in.files), in.batch, cfg.Shards, id)
					}
				}
				if want == nil {
					want = tables
					continue
				}
				diffTables(t, want, tables, "trial 0", fmt.Sprintf("trial %d (%d runs, %d files, batches of %d, %d shards)", trial, len(runs), len(in.files), in.batch, cfg.Shards))
				if t.Failed() {
					t.FailNow()
				}
			}
		})
	}
}

// TestTweetsWhoseIDTimeIsDaysFromCreatedAt indexes more tweets than the
// flow-control backlog holds (flow.MaxBacklog), all created in one hour,
// whose ids carry a time days or a year after created_at (or days before),
// with a delete notice for every hundredth after them: every run finishes,
// stores every tweet but the deleted ones and reconciles. Such tweets are
// deduplicated under their id's day and remembered under their
// created_at's day; a timer for the earlier day once held the key's
// later tweets back until the watermark passed it, which the paused
// reader never let happen: the run hung with the backlog full.
func TestTweetsWhoseIDTimeIsDaysFromCreatedAt(t *testing.T) {
	t.Parallel()
	n := 2*flow.MaxBacklog + 8192
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for _, shift := range []time.Duration{72 * time.Hour, 365 * 24 * time.Hour, -72 * time.Hour} {
		t.Run(fmt.Sprintf("id time %+dh from created_at", int(shift.Hours())), func(t *testing.T) {
			t.Parallel()
			lines := make([]string, 0, n+n/100)
			var deleted []string
			for i := range n {
				created := at.Add(time.Duration(i) * time.Hour / time.Duration(n))
				id := snowflake(created.Add(shift), i%4096)
				lines = append(lines, v1Tweet(id, created.Truncate(time.Second), fmt.Sprintf("shifted tweet %d", i), 0, 0))
				if i%100 == 0 {
					deleted = append(deleted, v1Delete(id))
				}
			}
			input := writeLines(t, filepath.Join(tempDir(t), "shifted.jsonl"), append(lines, deleted...)...)
			store := filepath.Join(tempDir(t), "store")
			// Stopped as a signal stops it if it hangs, so that it fails
			// here, with the reason, rather than when the test binary
			// times out.
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			hung := time.AfterFunc(3*time.Minute, func() { cancel(errors.New("still running after 3 minutes (the dedup stage held tweets back)")) })
			defer hung.Stop()
			sum, err := Run(ctx, pipelines.Config{Store: store, Input: input})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if !sum.Reconciles() {
				t.Fatalf("counts do not reconcile: %+v", sum)
			}
			if got, want := len(storedIDs(t, dumpStore(t, store))), n-len(deleted); got != want {
				t.Errorf("the raw table holds %d tweets, want %d", got, want)
			}
		})
	}
}
