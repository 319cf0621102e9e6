package job

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// streamPartitions is the partition count of the tests' topics.
const streamPartitions = 4

// sampleRecords returns every record of testdata/sample, file by file in
// name order, as the archive reader delivers them (one JSON document each).
func sampleRecords(t testing.TB) []schemas.Record {
	t.Helper()
	files, err := archiveio.Expand(filepath.Join(repoRoot(t), "testdata", "sample", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []schemas.Record
	for _, f := range files {
		_, err := archiveio.ReadFile(context.Background(), f, archiveio.Options{}, func(batch []schemas.Record) error {
			recs = append(recs, batch...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return recs
}

// produceRecords produces the Data of recs to topic, record i to partition
// i mod streamPartitions (the records' order within a partition is theirs).
// Records with a Fault (damaged input, such as a truncated gzip member)
// have no Kafka counterpart and are left out; it returns how many were.
func produceRecords(t testing.TB, addr, topic string, recs []schemas.Record, first int) (faulted int) {
	t.Helper()
	msgs := make([][]kafka.Message, streamPartitions)
	for i, r := range recs {
		if r.Fault != "" {
			faulted++
			continue
		}
		p := (first + i) % streamPartitions
		msgs[p] = append(msgs[p], kafka.Message{Value: r.Data})
	}
	for p, m := range msgs {
		if len(m) > 0 {
			kafkatest.ProduceMessages(t, addr, topic, p, m)
		}
	}
	return faulted
}

// filesRun is the sample indexed from files, once per test binary, for the
// tests that only read its tables and summary.
var filesRun struct {
	once  sync.Once
	dump  map[string]string
	sum   Summary
	fault []string // origins of the faulted records, as in the deadletter dump
}

// indexSampleFiles returns the tables and summary of the sample indexed
// from its files.
func indexSampleFiles(t *testing.T) (map[string]string, Summary, []string) {
	t.Helper()
	filesRun.once.Do(func() {
		store, sum := indexSample(t)
		filesRun.dump, filesRun.sum = dumpStore(t, store), sum
		for _, r := range sampleRecords(t) {
			if r.Fault != "" {
				filesRun.fault = append(filesRun.fault, r.Origin.String())
			}
		}
	})
	if filesRun.dump == nil {
		t.Fatal("indexing the sample from files failed")
	}
	return filesRun.dump, filesRun.sum, filesRun.fault
}

// deadLetterReasons returns the reasons of a deadletter dump, sorted,
// leaving out the rows whose origin is in skip.
func deadLetterReasons(t *testing.T, dump string, skip []string) []string {
	t.Helper()
	var out []string
	for _, r := range rows(t, dump) {
		if slices.Contains(skip, r["origin"].(string)) {
			continue
		}
		out = append(out, r["reason"].(string))
	}
	sort.Strings(out)
	return out
}

// compareWithFiles checks that the tables of a Kafka run equal those of the
// files run cell for cell. Dead letters are keyed by origin, which differs
// by source (file:line against kafka:topic/partition:offset), so they are
// compared by count and reasons, leaving out the records that were faulted
// in the files (they have no Kafka counterpart).
func compareWithFiles(t *testing.T, got map[string]string, name string) {
	t.Helper()
	want, _, faulted := indexSampleFiles(t)
	tweetTables := map[string]string{}
	for k, v := range want {
		if k != "deadletter" {
			tweetTables[k] = v
		}
	}
	diffTables(t, tweetTables, got, "files", name)
	wantDead := deadLetterReasons(t, want["deadletter"], faulted)
	gotDead := deadLetterReasons(t, got["deadletter"], nil)
	if !slices.Equal(wantDead, gotDead) {
		t.Errorf("dead letters: files (less %d faulted records) have %d with reasons\n%q\n%s has %d:\n%q", len(faulted), len(wantDead), wantDead, name, len(gotDead), gotDead)
	}
	for _, r := range rows(t, got["deadletter"]) {
		if o := r["origin"].(string); !strings.HasPrefix(o, "kafka:") {
			t.Errorf("%s: dead letter origin %q is not a Kafka origin", name, o)
			break
		}
	}
}

// TestKafkaBoundedMatchesFiles feeds the sample once through files and
// once through Kafka (4 partitions, a read bounded by --stop latest): the
// tables are identical, cell for cell, and so are the counts.
func TestKafkaBoundedMatchesFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) indexes the sample from files and from a bounded Kafka read and compares every table and count")
	}
	const topic = "tweets"
	_, filesSum, faulted := indexSampleFiles(t)
	addr := kafkatest.StartBroker(t, map[string]int{topic: streamPartitions})
	if n := produceRecords(t, addr, topic, sampleRecords(t), 0); n != len(faulted) {
		t.Fatalf("%d faulted records left out, files run saw %d", n, len(faulted))
	}

	store := filepath.Join(tempDir(t), "store")
	sum := runPipeline(t, pipelines.Config{Kafka: &kafkaio.Config{Brokers: []string{addr}, Topic: topic, Start: "earliest", Stop: "latest"}, Store: store})
	compareWithFiles(t, dumpStore(t, store), "kafka")

	n := int64(len(faulted))
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"read", sum.Read, filesSum.Read - n},
		{"indexed", sum.Indexed, filesSum.Indexed},
		{"duplicates", sum.Duplicates, filesSum.Duplicates},
		{"skipped", sum.Skipped, filesSum.Skipped},
		{"dead_lettered", sum.DeadLettered, filesSum.DeadLettered - n},
	} {
		if c.got != c.want {
			t.Errorf("kafka run %s = %d, want %d (files run less %d faulted records)", c.name, c.got, c.want, n)
		}
	}
}

// committedOffsets returns the group's committed offset of each partition
// of topic (-1: none).
func committedOffsets(ctx context.Context, addr, group, topic string) ([]int64, error) {
	c := &kafka.Client{Addr: kafka.TCP(addr), Timeout: 10 * time.Second}
	parts := make([]int, streamPartitions)
	for p := range parts {
		parts[p] = p
	}
	res, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: parts}})
	if err != nil {
		return nil, fmt.Errorf("fetching offsets of group %s: %w", group, err)
	}
	if res.Error != nil {
		return nil, fmt.Errorf("fetching offsets of group %s: %w", group, res.Error)
	}
	out := make([]int64, streamPartitions)
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			return nil, fmt.Errorf("fetching offsets of group %s: %w", group, p.Error)
		}
		out[p.Partition] = p.CommittedOffset
	}
	return out, nil
}

// waitCommitted waits until the group has committed want on every
// partition, polling the broker, or fails the test after timeout.
func waitCommitted(t *testing.T, addr, group, topic string, want []int64, timeout time.Duration, runErr <-chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var got []int64
	for {
		var err error
		if got, err = committedOffsets(ctx, addr, group, topic); err == nil && slices.Equal(got, want) {
			return
		}
		select {
		case <-tick.C:
		case err := <-runErr:
			t.Fatalf("the run ended (%v) before committing offsets %v (committed %v)", err, want, got)
		case <-ctx.Done():
			t.Fatalf("group %s committed %v after %v, want %v", group, got, timeout, want)
		}
	}
}

// splitWithoutSharedIDs returns the first index at or after i such that no
// tweet id occurs both before and after it in recs.
func splitWithoutSharedIDs(t *testing.T, recs []schemas.Record, i int) int {
	t.Helper()
	ids := make([][]uint64, len(recs))
	last := map[uint64]int{} // id -> last record holding it
	var dec schemas.Decoder
	for j, r := range recs {
		var out schemas.Decoded
		dec.Decode(r, &out)
		for _, tw := range out.Tweets {
			ids[j] = append(ids[j], tw.ID)
			last[tw.ID] = j
		}
	}
	for ; i < len(recs); i++ {
		ok := true
		for j := 0; j < i && ok; j++ {
			for _, id := range ids[j] {
				if last[id] >= i {
					ok = false
					break
				}
			}
		}
		if ok {
			return i
		}
	}
	t.Fatal("no split point without a tweet on both sides")
	return 0
}

// TestStreamDrainAndResumeMatchesOneRun runs the pipeline in streaming mode
// on the sample: once uninterrupted, and once drained midway, with offsets
// committed to a group, and restarted from the group's offsets. Both end
// with the same tables, cell for cell, and the two halves' counts add up to
// the uninterrupted run's: no tweet lost or counted twice. The restart
// splits minutes between the runs (checked), whose counts the second run
// continues from the table instead of overwriting them with its own half.
//
// The first run is drained once it has committed every record produced so
// far; the rest of the sample is produced after it has stopped. The split
// point is chosen so that no tweet id is on both sides: deduplication state
// does not survive a restart (see the streaming notes in README), so a copy
// of a tweet read before the restart would be counted again after it.
func TestStreamDrainAndResumeMatchesOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) streams the sample in two drained runs and in one, and compares their tables and counts")
	}
	const topic = "tweets"
	recs := sampleRecords(t)
	addr := kafkatest.StartBroker(t, map[string]int{topic: streamPartitions})
	split := splitWithoutSharedIDs(t, recs, len(recs)/2)

	// The uninterrupted run: the whole sample, streaming (committing makes
	// the read unbounded) until the end of the topic.
	ref := filepath.Join(tempDir(t), "ref")
	produceRecords(t, addr, topic, recs, 0)
	base := kafkaio.Config{Brokers: []string{addr}, Topic: topic, Commit: true, Stop: "latest"}
	oneCfg := base
	oneCfg.Group, oneCfg.Start = "uninterrupted", "earliest"
	one := runPipeline(t, pipelines.Config{Kafka: &oneCfg, Store: ref})
	want := dumpStore(t, ref)
	compareWithFiles(t, want, "uninterrupted stream")

	// The same records on a second broker, in two parts.
	addr2 := kafkatest.StartBroker(t, map[string]int{topic: streamPartitions})
	produceRecords(t, addr2, topic, recs[:split], 0)
	ends, err := partitionEnds(addr2, topic)
	if err != nil {
		t.Fatal(err)
	}

	store := filepath.Join(tempDir(t), "store")
	firstCfg := base
	firstCfg.Brokers, firstCfg.Group, firstCfg.Start, firstCfg.Stop = []string{addr2}, "resumed", "group", ""
	firstCfg.Drain = fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	errc := make(chan error, 1)
	var first Summary
	go func() {
		var err error
		first, err = Run(context.Background(), pipelines.Config{Kafka: &firstCfg, Store: store})
		errc <- err
	}()
	waitCommitted(t, addr2, "resumed", topic, ends, time.Minute, errc)
	kafkaio.Drain(firstCfg.Drain)
	if err := <-errc; err != nil {
		t.Fatalf("first run: %v", err)
	}
	if !first.Reconciles() {
		t.Fatalf("first run does not reconcile: %+v", first)
	}
	partial := dumpStore(t, store)
	if partial["frequency"] == want["frequency"] {
		t.Fatal("the first run already wrote the final frequency table: the restart splits no minute, the test proves nothing")
	}

	produceRecords(t, addr2, topic, recs[split:], split)
	secondCfg := base
	secondCfg.Brokers, secondCfg.Group, secondCfg.Start = []string{addr2}, "resumed", "group"
	second := runPipeline(t, pipelines.Config{Kafka: &secondCfg, Store: store})

	diffTables(t, want, dumpStore(t, store), "uninterrupted", "drained and resumed")
	for _, c := range []struct {
		name             string
		first, second, w int64
	}{
		{"read", first.Read, second.Read, one.Read},
		{"indexed", first.Indexed, second.Indexed, one.Indexed},
		{"duplicates", first.Duplicates, second.Duplicates, one.Duplicates},
		{"skipped", first.Skipped, second.Skipped, one.Skipped},
		{"dead_lettered", first.DeadLettered, second.DeadLettered, one.DeadLettered},
	} {
		if c.first+c.second != c.w || c.first == 0 || c.second == 0 && c.name == "read" {
			t.Errorf("%s: first run %d + resumed run %d, uninterrupted run %d", c.name, c.first, c.second, c.w)
		}
	}
}

// partitionEnds returns the high watermark of each partition of topic.
func partitionEnds(addr, topic string) ([]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &kafka.Client{Addr: kafka.TCP(addr), Timeout: 10 * time.Second}
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for p := range streamPartitions {
		req.Topics[topic] = append(req.Topics[topic], kafka.LastOffsetOf(p))
	}
	res, err := c.ListOffsets(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("listing offsets of %s: %w", topic, err)
	}
	out := make([]int64, streamPartitions)
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			return nil, fmt.Errorf("listing offsets of %s/%d: %w", topic, p.Partition, p.Error)
		}
		out[p.Partition] = p.LastOffset
	}
	return out, nil
}

// frequencyCount reads the count of a minute and language from the store
// the pipeline is writing (the store is shared within the process).
func frequencyCount(t *testing.T, st *storeio.Store, minute, lang string) int64 {
	t.Helper()
	v, ok, err := st.Get(schemas.TableFrequency, []byte(minute+lang))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return 0
	}
	r, err := schemas.DecodeFrequency([]byte(minute+lang), v)
	if err != nil {
		t.Fatal(err)
	}
	return r.Count
}

// waitCount polls the store until the count of minute and lang is want, or
// fails the test after timeout.
func waitCount(t *testing.T, st *storeio.Store, minute, lang string, want int64, timeout time.Duration, runErr <-chan error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := frequencyCount(t, st, minute, lang)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("frequency %s/%s = %d after %v, want %d", minute, lang, got, timeout, want)
		}
		select {
		case err := <-runErr:
			t.Fatalf("the run ended (%v) while waiting for frequency %s/%s = %d (it is %d)", err, minute, lang, want, got)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestStreamEarlyCountsBeforeMinuteEnds streams tweets dated an hour
// ahead: their minute cannot end before the test does (a partition's
// watermark never passes the wall clock), so their counts can only become
// visible through early panes, each the running total of the minute.
func TestStreamEarlyCountsBeforeMinuteEnds(t *testing.T) {
	t.Parallel() // mostly waits for the early firings
	const topic = "live"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 1})
	store := filepath.Join(tempDir(t), "store")
	st, err := storeio.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	m := time.Now().Add(time.Hour).Truncate(time.Minute)
	minute := schemas.Minute(m.Unix())
	kafkatest.Produce(t, addr, topic, 0, [][]byte{streamTweet(1, m.Add(time.Second), "es"), streamTweet(2, m.Add(2*time.Second), "es")})
	cfg := kafkaio.Config{Brokers: []string{addr}, Topic: topic, Drain: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())}
	errc := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), pipelines.Config{Kafka: &cfg, Store: store})
		errc <- err
	}()
	defer kafkaio.Drain(cfg.Drain)

	waitCount(t, st, minute, "es", 2, 20*time.Second, errc)
	kafkatest.Produce(t, addr, topic, 0, [][]byte{streamTweet(3, m.Add(3*time.Second), "es")})
	waitCount(t, st, minute, "es", 3, 20*time.Second, errc)
	kafkaio.Drain(cfg.Drain)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got := frequencyCount(t, st, minute, "es"); got != 3 {
		t.Errorf("after the drain (which closes the minute), frequency %s/es = %d, want 3", minute, got)
	}
}

// streamTweet is a minimal v1.1 tweet created at t.
func streamTweet(id int, t time.Time, lang string) []byte {
	return []byte(fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"tweet %d","lang":%q,"user":{"name":"n","screen_name":"s"}}`,
		t.UTC().Format(time.RubyDate), id, id, lang))
}

// TestStreamLateTweetRefiresMinute streams tweets through Kafka into the
// store: the count of a minute is visible while the pipeline runs; a tweet
// of that minute produced after the watermark has moved 30 minutes past it
// (a later tweet has been indexed) re-fires the minute with the
// accumulated total, which overwrites the stored count, while the pipeline
// still runs (allowed lateness is the dedup horizon, 24 h).
func TestStreamLateTweetRefiresMinute(t *testing.T) {
	t.Parallel() // mostly waits for the firings
	const topic = "live"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 1})
	store := filepath.Join(tempDir(t), "store")
	st, err := storeio.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	m := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	minute, later := schemas.Minute(m.Unix()), schemas.Minute(m.Add(30*time.Minute).Unix())
	kafkatest.Produce(t, addr, topic, 0, [][]byte{
		streamTweet(1, m.Add(5*time.Second), "en"),
		streamTweet(2, m.Add(9*time.Second), "en"),
		streamTweet(3, m.Add(30*time.Minute), "en"),
	})

	cfg := kafkaio.Config{Brokers: []string{addr}, Topic: topic, Drain: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())}
	errc := make(chan error, 1)
	var sum Summary
	go func() {
		var err error
		sum, err = Run(context.Background(), pipelines.Config{Kafka: &cfg, Store: store})
		errc <- err
	}()
	defer kafkaio.Drain(cfg.Drain) // on failure, let the pipeline end

	waitCount(t, st, minute, "en", 2, 20*time.Second, errc)
	waitCount(t, st, later, "en", 1, 20*time.Second, errc)
	// Late: the watermark is past minute m (tweet 3, 30 minutes later, is
	// indexed), but within the allowed lateness. A late copy of tweet 2
	// comes first: dedup must still remember minute m's ids (prism drops
	// a window's state at the window's end, whatever the lateness, which
	// is why Dedup keeps its state in the global window).
	kafkatest.Produce(t, addr, topic, 0, [][]byte{
		streamTweet(2, m.Add(9*time.Second), "en"),
		streamTweet(4, m.Add(40*time.Second), "en"),
	})
	waitCount(t, st, minute, "en", 3, 20*time.Second, errc)

	kafkaio.Drain(cfg.Drain)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if sum.Read != 5 || sum.Indexed != 4 || sum.Duplicates != 1 {
		t.Errorf("summary %+v, want read 5 = indexed 4 + duplicates 1", sum)
	}
	if got := frequencyCount(t, st, minute, "en"); got != 3 {
		t.Errorf("after the drain, frequency %s/en = %d, want 3", minute, got)
	}
	// The minute's cell was written twice (2, then 3): one row.
	checkRowsEqualTables(t, "stream", sum, dumpStore(t, store))
}

// TestStreamingMatchesKafkaRead checks pipelines.Config.Streaming, which turns early
// firings on, against what kafkaio.Read reads: a range that ends, with no
// watermark before its end (kafkaio.Config.Bounded), runs as a batch, as
// files do, and is a bounded PCollection unless it is paced (as runs with
// their workers in process read it), which checkpoints.
func TestStreamingMatchesKafkaRead(t *testing.T) {
	tests := []struct {
		name  string
		kafka *kafkaio.Config
		want  bool
	}{
		{"files", nil, false},
		{"kafka unbounded", &kafkaio.Config{Brokers: []string{"127.0.0.1:9092"}, Topic: "t"}, true},
		{"kafka bounded", &kafkaio.Config{Brokers: []string{"127.0.0.1:9092"}, Topic: "t", Stop: "latest"}, false},
		{"kafka committing, with stop", &kafkaio.Config{Brokers: []string{"127.0.0.1:9092"}, Topic: "t", Group: "g", Commit: true, Stop: "latest"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := pipelines.Config{Kafka: tc.kafka, Input: "x", Store: "y"}
			if tc.kafka != nil {
				cfg.Input = ""
				if got := !tc.kafka.Bounded(); got != tc.want {
					t.Fatalf("kafkaio.Config.Bounded() = %v, test expects %v", !got, !tc.want)
				}
				for _, paced := range []bool{false, true} {
					_, s := beam.NewPipelineWithRoot()
					kcfg := *tc.kafka
					kcfg.Paced = paced
					// A PCollection's String ends in ":unbounded" when it is.
					want := tc.want || paced
					if got := strings.HasSuffix(kafkaio.Read(s, kcfg).String(), ":unbounded}"); got != want {
						t.Fatalf("kafkaio.Read output (paced %v) unbounded = %v, test expects %v", paced, got, want)
					}
				}
			}
			if got := cfg.Streaming(); got != tc.want {
				t.Errorf("Streaming() = %v, want %v", got, tc.want)
			}
			opts := pipelines.FrequencyOptions(cfg, transforms.FrequencyBase{})
			if early := opts.EarlyFiring > 0; early != tc.want {
				t.Errorf("early firings = %v (%v), want %v", early, opts.EarlyFiring, tc.want)
			}
		})
	}
}
