package job

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/tweetindex/tweetindex/io/kafkaio"
	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/schemas"
)

// archiveTweet is a tweet of the test archive and where it was filed.
type archiveTweet struct {
	id      int
	created time.Time
	lang    string
	filed   time.Time // the minute file it was collected into
}

func (a archiveTweet) line() string {
	return fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"backfill tweet %d","lang":%q,"user":{"name":"n%d","screen_name":"s%d"}}`,
		a.created.Format(time.RubyDate), a.id, a.id, a.lang, a.id%7, a.id%7)
}

// writeStreamGrab writes three days of tweets under root the way the
// Twitter Stream Grab does: the first two days as YYYY/MM/DD/HH/MM.json.gz
// minute files, the third as a daily tar of such members. A tweet is filed
// in the minute it was collected, up to 80 s after it was created; every
// tenth one is collected twice; some files carry a delete notice; two
// files hold a broken line (one of them far outside any test range); the
// tweets created at edges are collected 90 s late.
func writeStreamGrab(t *testing.T, root string, day1 time.Time, edges ...time.Time) []archiveTweet {
	t.Helper()
	var tweets []archiveTweet
	files := map[time.Time][]string{}
	id := 1000
	for at := day1; at.Before(day1.AddDate(0, 0, 3)); at = at.Add(7 * time.Minute) {
		for k := 0; k < 3; k++ {
			id++
			a := archiveTweet{id: id, created: at.Add(time.Duration(k*23) * time.Second), lang: []string{"en", "ja", "es"}[id%3]}
			a.filed = a.created.Add(time.Duration(id%5) * 20 * time.Second).Truncate(time.Minute)
			tweets = append(tweets, a)
			files[a.filed] = append(files[a.filed], a.line())
			if id%10 == 0 {
				again := a.filed.Add(time.Minute)
				files[again] = append(files[again], a.line())
			}
			if id%17 == 0 {
				// A delete notice of a tweet the archive does not hold
				// (deletes are tested in compliance_test.go).
				files[a.filed] = append(files[a.filed], fmt.Sprintf(`{"delete":{"status":{"id_str":"%d"}}}`, id+1_000_000))
			}
		}
	}
	// Tweets on the edges of the test ranges, collected 90 s late: the
	// last ones of a range are filed after its end.
	for _, at := range edges {
		id++
		a := archiveTweet{id: id, created: at, lang: "en", filed: at.Add(90 * time.Second).Truncate(time.Minute)}
		tweets = append(tweets, a)
		files[a.filed] = append(files[a.filed], a.line())
	}
	broken := []time.Time{day1.Add(12 * time.Hour), day1.AddDate(0, 0, 2).Add(30 * time.Minute)}
	for _, m := range broken {
		files[m] = append(files[m], `{"created_at": "broken`)
	}
	gz := func(lines []string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(strings.Join(lines, "\n") + "\n"))
		w.Close()
		return b.Bytes()
	}
	minutes := make([]time.Time, 0, len(files))
	for m := range files {
		minutes = append(minutes, m)
	}
	slices.SortFunc(minutes, func(a, b time.Time) int { return a.Compare(b) })
	day3 := day1.AddDate(0, 0, 2)
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	for _, m := range minutes {
		name := m.Format("2006/01/02/15/04") + ".json.gz"
		data := gz(files[m])
		if m.Before(day3) {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if m.Before(day3.AddDate(0, 0, 1)) {
			tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))})
			tw.Write(data)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "twitter-stream-"+day3.Format("2006-01-02")+".tar"), tarBuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return tweets
}

// TestBackfillTwoHoursOfAnArchive backfills a two-hour range that spans
// midnight, from minute files into a daily tar, out of a three-day
// archive: the tables hold exactly the tweets created in the range (tweets
// filed after the range by collection delay included), a second identical
// backfill leaves every table as it was, and the coverage of the recorded
// runs is the range.
func TestBackfillTwoHoursOfAnArchive(t *testing.T) {
	t.Parallel()
	day1 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	root := filepath.Join(tempDir(t), "grab")
	from := day1.AddDate(0, 0, 1).Add(23 * time.Hour)
	to := from.Add(2 * time.Hour)
	tweets := writeStreamGrab(t, root, day1, from.Add(-5*time.Second), to.Add(-10*time.Second), to.Add(-time.Second))

	wantIDs := map[string]bool{}
	wantCounts := map[string]int64{}
	for _, a := range tweets {
		if !a.created.Before(from) && a.created.Before(to) {
			wantIDs[fmt.Sprint(a.id)] = true
			wantCounts[schemas.Minute(a.created.Unix())+"/"+a.lang]++
		}
	}

	b := Backfill{Root: root, From: from, To: to}
	files, total, err := b.Files()
	if err != nil {
		t.Fatal(err)
	}
	// The minute files of [22:50, 01:10) of day 2 and the tar of day 3.
	lo, hi := from.Add(-DefaultMargin), to.Add(DefaultMargin)
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		if strings.HasSuffix(rel, ".tar") {
			continue
		}
		m, err := time.Parse("2006/01/02/15/04.json.gz", rel)
		if err != nil || m.Before(lo) || !m.Before(hi) {
			t.Errorf("selected %s, outside [%s, %s)", rel, lo, hi)
		}
	}
	if len(files) < 10 || total < 500 {
		t.Fatalf("selected %d of %d files", len(files), total)
	}
	store := filepath.Join(tempDir(t), "store")
	cfg := pipelines.Config{Store: store}
	if err := b.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	sum := runPipeline(t, cfg)
	if sum.Indexed != int64(len(wantIDs)) || sum.DeadLettered != 1 || sum.Duplicates == 0 || sum.OutOfRange == 0 {
		t.Errorf("summary %+v: want indexed %d, dead_lettered 1 (the broken line in range; not the one of day 1), some duplicates and out-of-range tweets", sum, len(wantIDs))
	}

	first := dumpStore(t, store)
	gotIDs := map[string]bool{}
	for _, r := range rows(t, first["raw"]) {
		gotIDs[r["tweet_id"].(string)] = true
	}
	if len(gotIDs) != len(wantIDs) {
		t.Errorf("raw table holds %d tweets, want %d", len(gotIDs), len(wantIDs))
	}
	for id := range wantIDs {
		if !gotIDs[id] {
			t.Errorf("tweet %s, created in range, is not in the raw table", id)
		}
	}
	gotCounts := map[string]int64{}
	for _, r := range rows(t, first["frequency"]) {
		gotCounts[r["minute"].(string)+"/"+r["lang"].(string)] = int64(r["count"].(float64))
	}
	if fmt.Sprint(gotCounts) != fmt.Sprint(wantCounts) {
		t.Errorf("frequency\n got %v\nwant %v", gotCounts, wantCounts)
	}

	runPipeline(t, cfg)
	diffTables(t, first, dumpStore(t, store), "first backfill", "second backfill")

	tables, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	runs, err := ReadRunRecords(context.Background(), tables)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Status != RunSucceeded || runs[1].Status != RunSucceeded || runs[1].Summary == nil || runs[1].Summary.Indexed != sum.Indexed {
		t.Errorf("run records %+v: want two succeeded runs with their summaries", runs)
	}
	spans := CoverageOf(runs, from.Add(-time.Hour), to.Add(time.Hour), time.Hour)
	want := []Span{
		{From: from.Add(-time.Hour), To: from, Status: Missing},
		{From: from, To: to, Status: Covered},
		{From: to, To: to.Add(time.Hour), Status: Missing},
	}
	if fmt.Sprint(spans) != fmt.Sprint(want) {
		t.Errorf("coverage\n got %v\nwant %v", spans, want)
	}
}

// TestBackfillFromKafkaMatchesFiles produces the archive's tweets into a
// topic, each stamped with the time it was filed, and backfills the same
// two hours from Kafka by time: the tables are the file backfill's (the
// broken lines and the delete notices, which only the files hold, aside:
// the dead letters, and the tombstones of the identity table).
func TestBackfillFromKafkaMatchesFiles(t *testing.T) {
	t.Parallel()
	day1 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	root := filepath.Join(tempDir(t), "grab")
	from := day1.AddDate(0, 0, 1).Add(23 * time.Hour)
	to := from.Add(2 * time.Hour)
	tweets := writeStreamGrab(t, root, day1, from.Add(-5*time.Second), to.Add(-10*time.Second), to.Add(-time.Second))

	fileStore := filepath.Join(tempDir(t), "files")
	cfg := pipelines.Config{Store: fileStore}
	if err := (Backfill{Root: root, From: from, To: to}).Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	runPipeline(t, cfg)
	want := dumpStore(t, fileStore)
	delete(want, "deadletter")
	want["identity"] = withoutTombstones(t, want["identity"])

	const topic = "grab"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 2})
	slices.SortStableFunc(tweets, func(a, b archiveTweet) int { return a.filed.Compare(b.filed) })
	var parts [2][]kafka.Message
	for _, a := range tweets {
		p := a.id % 2
		parts[p] = append(parts[p], kafka.Message{Value: []byte(a.line()), Time: a.filed})
		if a.id%10 == 0 { // collected twice, a minute later
			parts[p] = append(parts[p], kafka.Message{Value: []byte(a.line()), Time: a.filed.Add(time.Minute)})
		}
	}
	for p, msgs := range parts {
		slices.SortStableFunc(msgs, func(a, b kafka.Message) int { return a.Time.Compare(b.Time) })
		kafkatest.ProduceMessages(t, addr, topic, p, msgs)
	}
	kafkaStore := filepath.Join(tempDir(t), "kafka")
	cfg = pipelines.Config{Store: kafkaStore}
	b := Backfill{Kafka: &kafkaio.Config{Brokers: []string{addr}, Topic: topic}, From: from, To: to}
	if err := b.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Streaming() {
		t.Fatal("a Kafka backfill is not a bounded read")
	}
	sum := runPipeline(t, cfg)
	got := dumpStore(t, kafkaStore)
	delete(got, "deadletter")
	got["identity"] = withoutTombstones(t, got["identity"])
	diffTables(t, want, got, "file backfill", "kafka backfill")
	if sum.OutOfRange == 0 || sum.Read >= int64(len(tweets)) {
		t.Errorf("summary %+v: want a read of the range and its margin only (%d tweets in the topic), with some out of range", sum, len(tweets))
	}
}

// withoutTombstones returns an identity table dump without its tombstones.
func withoutTombstones(t *testing.T, dump string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.SplitAfter(dump, "\n") {
		if !strings.Contains(line, `"deleted":true`) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestEmptyKafkaBackfillIsNotCovered: a Kafka backfill of a range in which
// the topic holds no message fails with ErrEmptyRead and is recorded as
// empty, so its range is reported empty, never covered.
func TestEmptyKafkaBackfillIsNotCovered(t *testing.T) {
	t.Parallel()
	const topic = "quiet"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 2})
	old := time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)
	kafkatest.ProduceMessages(t, addr, topic, 0, []kafka.Message{{Value: []byte(`{"id_str":"1","created_at":"Wed Jan 01 12:00:00 +0000 2020","text":"x"}`), Time: old}})
	from := time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)
	to := from.Add(time.Hour)
	store := filepath.Join(tempDir(t), "store")
	cfg := pipelines.Config{Store: store}
	if err := (Backfill{Kafka: &kafkaio.Config{Brokers: []string{addr}, Topic: topic}, From: from, To: to}).Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), cfg)
	if !errors.Is(err, ErrEmptyRead) || sum.Read != 0 {
		t.Fatalf("run: %v, read %d; want ErrEmptyRead after reading nothing", err, sum.Read)
	}
	tables, err := sink.Open(sink.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	runs, err := ReadRunRecords(context.Background(), tables)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Status != RunEmpty {
		t.Fatalf("run records %+v, want one empty", runs)
	}
	if spans := CoverageOf(runs, from, to, time.Hour); len(spans) != 1 || spans[0].Status != Empty {
		t.Errorf("coverage %+v, want the hour empty", spans)
	}
}
