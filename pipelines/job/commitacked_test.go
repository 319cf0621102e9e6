package job

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/pipelines"
)

// snowflakeTweet is a v1.1 tweet whose id is a Snowflake id of its time.
func snowflakeTweet(t time.Time, seq int, text string) (uint64, []byte) {
	id := uint64(t.UnixMilli()-1288834974657)<<22 | uint64(seq)
	return id, []byte(fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":%q,"lang":"en","user":{"name":"n","screen_name":"s"}}`,
		t.UTC().Format(time.RubyDate), id, text))
}

// TestCommitAfterWriteAccountsForEveryRecord streams the sample and every
// kind of record the pipeline drops or never stores through Kafka with
// --commit: byte-identical copies across partitions, a compliance delete
// and a copy of the deleted tweet read after it, a v2 page of two tweets,
// broken JSON, an empty value, records in a committed transaction (whose
// marker takes an offset and is no message). Every record is acknowledged
// exactly: the group's offsets reach the end of every partition when the
// read ends (nothing stalls the commit), and no record is acknowledged
// beyond the units of work it was expected to need (nothing lets the
// commit pass a record early). Again with --from/--to (tweets out of
// range are acknowledged by parsing alone) and with Cassandra as the sink.
func TestCommitAfterWriteAccountsForEveryRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) streams the sample and dropped records through Kafka with --commit and checks the offsets committed reach every partition's end")
	}
	const topic = "tweets"
	addr := kafkatest.StartBroker(t, map[string]int{topic: streamPartitions})
	produceRecords(t, addr, topic, sampleRecords(t), 0)

	at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	_, a := snowflakeTweet(at, 1, "first #commit")
	_, b := snowflakeTweet(at.Add(time.Second), 2, "second")
	cID, c := snowflakeTweet(at.Add(2*time.Second), 3, "third, deleted")
	kafkatest.ProduceTransaction(t, addr, topic, 1, [][]byte{a, b}, true)
	kafkatest.Produce(t, addr, topic, 1, [][]byte{c})
	page := fmt.Sprintf(`{"data":[{"id":"%d","text":"page one","created_at":%q,"author_id":"7","lang":"en"},{"id":"%d","text":"page two","created_at":%q,"author_id":"7","lang":"en"}],"includes":{"users":[{"id":"7","name":"P","username":"p"}]}}`,
		uint64(at.Add(time.Minute).UnixMilli()-1288834974657)<<22|4, at.Add(time.Minute).Format(time.RFC3339),
		uint64(at.Add(time.Minute).UnixMilli()-1288834974657)<<22|5, at.Add(time.Minute).Format(time.RFC3339))
	del := fmt.Sprintf(`{"delete":{"status":{"id":%d,"id_str":"%d","user_id":7,"user_id_str":"7"},"timestamp_ms":"%d"}}`, cID, cID, at.Add(time.Hour).UnixMilli())
	kafkatest.Produce(t, addr, topic, 2, [][]byte{a, []byte(del), c, []byte(`{"created_at": broken`), {}, []byte(page)})
	kafkatest.ProduceTransaction(t, addr, topic, 3, [][]byte{b}, true)
	ends, err := partitionEnds(addr, topic)
	if err != nil {
		t.Fatal(err)
	}

	run := func(name, group string, cfg pipelines.Config) Summary {
		t.Helper()
		over := kafkaio.OverAcknowledged()
		cfg.Kafka = &kafkaio.Config{Brokers: []string{addr}, Topic: topic, Group: group, Start: "earliest", Stop: "latest", Commit: true}
		sum := runPipeline(t, cfg)
		got, err := committedOffsets(context.Background(), addr, group, topic)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ends) {
			t.Errorf("%s: offsets committed %v, want the partitions' ends %v", name, got, ends)
		}
		if n := kafkaio.OverAcknowledged() - over; n != 0 {
			t.Errorf("%s: %d records acknowledged beyond their units of work", name, n)
		}
		return sum
	}
	store := filepath.Join(tempDir(t), "store")
	sum := run("store", "g", pipelines.Config{Store: store})
	if sum.Duplicates == 0 || sum.DeadLettered == 0 || sum.Skipped == 0 {
		t.Errorf("summary %+v: want duplicates, dead letters and skipped records among those acknowledged", sum)
	}
	if raw := dumpStore(t, store)["raw"]; strings.Contains(raw, "third, deleted") || !strings.Contains(raw, "page two") {
		t.Errorf("raw table: the deleted tweet stored, or the page's second tweet missing")
	}

	sum = run("from/to", "g2", pipelines.Config{Store: filepath.Join(tempDir(t), "store"), From: at, To: at.Add(90 * time.Second)})
	if sum.OutOfRange == 0 {
		t.Errorf("summary %+v: no tweet out of range", sum)
	}

	_, cql := startCQL(t)
	run("cassandra", "g3", pipelines.Config{Cassandra: cql})
}
