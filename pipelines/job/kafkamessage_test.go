package job

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/pipelines"
)

// kafkaPartOrigin is the origin of a dead letter of a line of a Kafka
// message that holds several: topic, partition, offset and line.
var kafkaPartOrigin = regexp.MustCompile(`^kafka:[^/]+/\d+:\d+:\d+$`)

// TestKafkaMessagesHoldingFiles sends every file of the sample as one
// Kafka message, as a producer that sends a whole file does (`kcat -P`):
// JSON lines, gzip, bzip2 and zstd files, a truncated gzip file, v2 pages,
// a v1.1 array and search response, a tweets.js, a tar and a zip. The
// tables are those of indexing the files, cell for cell, and so are the
// counts; dead letters have the same reasons, and their origins name the
// partition, the offset and the line in the message. With --commit, the
// offsets committed reach every partition's end.
func TestKafkaMessagesHoldingFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) sends each sample file as one Kafka message and compares the tables with the files'")
	}
	const topic = "files"
	want, filesSum, _ := indexSampleFiles(t)
	files, err := archiveio.Expand(filepath.Join(repoRoot(t), "testdata", "sample", "*"))
	if err != nil {
		t.Fatal(err)
	}
	addr := kafkatest.StartBroker(t, map[string]int{topic: streamPartitions})
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kafkatest.Produce(t, addr, topic, i%streamPartitions, [][]byte{data})
	}
	ends, err := partitionEnds(addr, topic)
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(tempDir(t), "store")
	sum := runPipeline(t, pipelines.Config{Store: store, Kafka: &kafkaio.Config{Brokers: []string{addr}, Topic: topic,
		Group: "g", Start: "earliest", Stop: "latest", Commit: true}})
	got := dumpStore(t, store)
	checkLikeFiles(t, want, got, "files as messages")
	if sum.Read != filesSum.Read || sum.Indexed != filesSum.Indexed || sum.Duplicates != filesSum.Duplicates ||
		sum.Skipped != filesSum.Skipped || sum.DeadLettered != filesSum.DeadLettered {
		t.Errorf("summary %+v, want the files' %+v", sum, filesSum)
	}
	committed, err := committedOffsets(context.Background(), addr, "g", topic)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(committed, ends) {
		t.Errorf("offsets committed %v, want the partitions' ends %v", committed, ends)
	}
}

// checkLikeFiles checks that the tables of a Kafka run, got, equal those
// of a run over files, want, but for dead letters, which must have the
// same reasons, each at the origin of a line of a Kafka message.
func checkLikeFiles(t *testing.T, want, got map[string]string, name string) {
	t.Helper()
	tweetTables := map[string]string{}
	for k, v := range want {
		if k != "deadletter" {
			tweetTables[k] = v
		}
	}
	diffTables(t, tweetTables, got, "files", name)
	if w, g := deadLetterReasons(t, want["deadletter"], nil), deadLetterReasons(t, got["deadletter"], nil); !slices.Equal(w, g) {
		t.Errorf("%s: dead letters with reasons\n%q\nwant the files'\n%q", name, g, w)
	}
	for _, r := range rows(t, got["deadletter"]) {
		if o := r["origin"].(string); !kafkaPartOrigin.MatchString(o) {
			t.Errorf("%s: dead letter origin %q does not name topic, partition, offset and line", name, o)
		}
	}
}

// TestKcatProducedFiles produces a JSON-lines file with kcat as a user
// would: the whole file as one message (`kcat -P FILE`, kcat's default),
// one tweet a message (`kcat -P -l FILE`), and the file gzipped as one
// message. Each topic indexed gives the tables of indexing the file.
func TestKcatProducedFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) produces files with kcat and indexes them")
	}
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (apt-get install kcat): skipping the test of files produced with kcat")
	}
	file := filepath.Join(repoRoot(t), "testdata", "sample", "v1-stream-12a.jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	gzFile := filepath.Join(tempDir(t), "tweets.jsonl.gz")
	if err := os.WriteFile(gzFile, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	wantStore := filepath.Join(tempDir(t), "files")
	runPipeline(t, pipelines.Config{Store: wantStore, Input: file})
	want := dumpStore(t, wantStore)

	addr := kafkatest.StartBroker(t, map[string]int{"whole": 1, "lines": 1, "gzipped": 1})
	for _, c := range []struct {
		topic string
		args  []string
	}{
		{"whole", []string{file}},
		{"lines", []string{"-l", file}},
		{"gzipped", []string{gzFile}},
	} {
		args := append([]string{"-P", "-b", addr, "-t", c.topic, "-p", "0"}, c.args...)
		if out, err := exec.Command(kcat, args...).CombinedOutput(); err != nil {
			t.Fatalf("kcat %q: %v\n%s", args, err, out)
		}
		store := filepath.Join(tempDir(t), c.topic)
		runPipeline(t, pipelines.Config{Store: store, Kafka: &kafkaio.Config{Brokers: []string{addr}, Topic: c.topic, Start: "earliest", Stop: "latest"}})
		got := dumpStore(t, store)
		if c.topic == "lines" {
			// A message a line: dead letters at their offsets, as always.
			tables := map[string]string{}
			for k, v := range want {
				if k != "deadletter" {
					tables[k] = v
				}
			}
			diffTables(t, tables, got, "the file", "kcat -l")
			continue
		}
		checkLikeFiles(t, want, got, "kcat "+c.topic)
	}
}
