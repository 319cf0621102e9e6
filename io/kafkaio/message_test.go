package kafkaio

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestReadMessagesHoldingSeveralRecords reads, from kfake, messages as
// producers send them: one JSON line (read as it is), several JSON lines,
// the same lines gzipped and zstd-compressed as a whole, and a v2 page
// over several lines. A message of one line is one record, as ever; each
// other message is its lines, each with the message's origin and offset
// range and its line (Record.Part), all of a message in one batch.
func TestReadMessagesHoldingSeveralRecords(t *testing.T) {
	const topic = "messages"
	addr := kafkatest.StartBroker(t, map[string]int{topic: 1})
	lines := []byte("{\"n\":1}\n{\"n\":2}\n\n{\"n\":4}\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(lines)
	zw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zst := enc.EncodeAll(lines, nil)
	page := []byte("{\"data\": [\n  {\"id\": \"1\"},\n  {\"id\": \"2\"}\n]}\n")
	kafkatest.Produce(t, addr, topic, 0, [][]byte{[]byte(`{"n":0}` + "\n"), lines, gz.Bytes(), zst, page})

	key, sink := newSink(t)
	cfg := Config{Brokers: []string{addr}, Topic: topic, Start: "earliest", Stop: "latest", MaxBatchRecords: 2}
	if _, err := ptest.RunWithMetrics(readPipeline(cfg, key)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range sink.snapshot() {
		for i, r := range b.recs {
			// A message's records are never split between batches.
			if i == 0 && r.Part > 1 {
				t.Errorf("a batch starts with line %d of the message at offset %d", r.Part, r.Origin.Line)
			}
			got = append(got, fmt.Sprintf("%d/%d from %d: %s", r.Origin.Line, r.Part, r.From, bytes.TrimSpace(r.Data)))
		}
	}
	var want []string
	want = append(want, `0/0 from 0: {"n":0}`)
	for o := 1; o <= 3; o++ {
		want = append(want, fmt.Sprintf(`%d/1 from %d: {"n":1}`, o, o), fmt.Sprintf(`%d/2 from %d: {"n":2}`, o, o),
			fmt.Sprintf(`%d/3 from %d: `, o, o), fmt.Sprintf(`%d/4 from %d: {"n":4}`, o, o))
	}
	want = append(want, "4/1 from 4: "+string(bytes.TrimSpace(page)))
	if d := diffLines(got, want); d != "" {
		t.Errorf("records differ:\n%s", d)
	}
	r := schemas.Record{Origin: schemas.Origin{Source: "kafka:messages/0", Line: 2}, Part: 3}
	if o := r.Place().String(); o != "kafka:messages/0:2:3" {
		t.Errorf("a dead letter of line 3 of the message at offset 2 has origin %s", o)
	}
}
