package transforms

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

func TestTweetBatchCodecRoundTrip(t *testing.T) {
	tests := []TweetBatch{
		{},
		{Tweets: []schemas.Tweet{{ID: 1, CreatedAt: 1_700_000_000, Lang: "en", JSON: []byte(`{}`)}}},
		{Tweets: []schemas.Tweet{
			{ID: 1 << 62, CreatedAt: 1_700_000_060, Lang: "ja", Text: "東京タワー", UserName: "名前", ScreenName: "u", HasPoint: true, Lat: 35.6586, Lon: 139.7454, JSON: []byte(`{"id_str":"1"}`), Origin: schemas.Origin{Source: "a.tar!b.json.gz", Line: 7}, RowKey: schemas.NewRowKey(1_700_000_060, []byte(`{"id_str":"1"}`))},
			{ID: 2, CreatedAt: -5, Lang: "und", HasPoint: true, PlaceCentre: true, Lat: -90, Lon: 180, JSON: []byte{}},
		}},
		{Tweets: []schemas.Tweet{{ID: 3, JSON: []byte(`{}`)}}, Acks: []schemas.Ack{{Source: "kafka:t/0", Offset: 12, Done: 3}, {Source: "kafka:t/1", Offset: 0, Done: 1}}},
		{Tweets: []schemas.Tweet{{ID: 4, JSON: []byte(`{}`)}}, Deletes: []uint64{5}, Acks: []schemas.Ack{{Source: "kafka:t/2", Offset: 1 << 40, Done: 3}}},
		{Tweets: []schemas.Tweet{{ID: 6, JSON: []byte(`{}`)}}, Kept: []schemas.Tweet{{ID: 7, Text: "kept", JSON: []byte(`{"k":1}`)}}},
		{Tweets: []schemas.Tweet{{ID: 8, JSON: []byte(`{}`)}}, Collided: []schemas.RowKey{schemas.NewRowKey(1_700_000_060, []byte(`a`)), schemas.NewRowKey(1, []byte(`b`))}},
		{Tweets: []schemas.Tweet{{ID: 9, JSON: []byte(`{}`)}}, Acks: []schemas.Ack{{Source: "kafka:t/0", Offset: 1, Done: 1}}, Collided: []schemas.RowKey{schemas.NewRowKey(2, []byte(`c`))}},
	}
	// Every batch is encoded before any is decoded: an encoding must not
	// share the encoder's buffers, which the next batch reuses.
	encoded := make([][]byte, len(tests))
	for i, in := range tests {
		encoded[i] = encodeTweetBatch(in)
	}
	for i, in := range tests {
		out, err := decodeTweetBatch(encoded[i])
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if len(in.Tweets) == 0 && len(out.Tweets) == 0 {
			continue
		}
		for j := range in.Tweets {
			if in.Tweets[j].JSON == nil {
				in.Tweets[j].JSON = []byte{}
			}
		}
		if !reflect.DeepEqual(normalize(in), normalize(out)) {
			t.Errorf("case %d: round trip\n got %+v\nwant %+v", i, out, in)
		}
	}
}

func normalize(b TweetBatch) TweetBatch {
	for i := range b.Tweets {
		if len(b.Tweets[i].JSON) == 0 {
			b.Tweets[i].JSON = []byte{}
		}
	}
	return b
}

// TestTweetBatchHeldInProcess: while a run shares batches
// (ShareBatchesInProcess), a batch that ParseFn gave a handle (shareBatch)
// crosses as the handle, however often it is encoded (the SDK also
// encodes elements to sample their size), and decodes to the batch
// itself, once. Other batches, and all once no run shares, cross as their
// encoding. Both decode either way.
func TestTweetBatchHeldInProcess(t *testing.T) {
	in := TweetBatch{Tweets: []schemas.Tweet{{ID: 1, CreatedAt: 1_700_000_000, Lang: "en", Text: "hi", JSON: []byte(`{"id_str":"1"}`)}}, Deletes: []uint64{7}}
	_, held0 := SharedBatches()

	stop := ShareBatchesInProcess()
	stop2 := ShareBatchesInProcess() // two runs at once
	a, b := in, in
	shareBatch(&a)
	stop()
	stop()         // again: no effect
	shareBatch(&b) // the other run still shares
	stop2()
	c := in
	shareBatch(&c) // no run shares
	if a.handle == 0 || b.handle == 0 || a.handle == b.handle || c.handle != 0 {
		t.Fatalf("handles %d, %d while sharing and %d after; want two different ones, then 0", a.handle, b.handle, c.handle)
	}
	sample, held, full, local := encodeTweetBatch(a), encodeTweetBatch(a), encodeTweetBatch(c), encodeTweetBatch(in)
	if string(sample) != string(held) || held[0] != batchHeld || len(held) > 1+binary.MaxVarintLen64 {
		t.Fatalf("a shared batch encoded twice: %x and %x; want one handle (kind %d)", sample, held, batchHeld)
	}
	if full[0] != batchS2 || local[0] != batchS2 {
		t.Fatalf("batches without a handle: encoding kinds %d and %d, want %d", full[0], local[0], batchS2)
	}
	for _, enc := range [][]byte{held, full, local} {
		out, err := decodeTweetBatch(enc)
		if err != nil {
			t.Fatalf("kind %d: %v", enc[0], err)
		}
		if !reflect.DeepEqual(out, in) { // the handle taken off
			t.Errorf("kind %d: round trip\n got %+v\nwant %+v", enc[0], out, in)
		}
	}
	// Once only: a second decode (or one in another process) fails
	// instead of reading nothing; and nothing is left held.
	if _, err := decodeTweetBatch(held); !errors.Is(err, errBatchNotHeld) {
		t.Errorf("decoding a handle twice: %v, want errBatchNotHeld", err)
	}
	if _, held := SharedBatches(); held != held0 {
		t.Errorf("%d batches held after decoding, want %d", held, held0)
	}
	unknown := binary.AppendUvarint([]byte{batchHeld}, lastHandle.Load()+1000)
	if _, err := decodeTweetBatch(unknown); !errors.Is(err, errBatchNotHeld) {
		t.Errorf("decoding a handle never given: %v, want errBatchNotHeld", err)
	}
	if _, err := decodeTweetBatch(append(held[:len(held):len(held)], 0)); err == nil {
		t.Error("a handle with a byte after it decoded")
	}
}

func TestTweetBatchDecodeRejectsTruncation(t *testing.T) {
	enc := encodeTweetBatch(TweetBatch{Tweets: []schemas.Tweet{{ID: 9, Text: "hello", JSON: []byte(`{"a":1}`)}}})
	for n := 0; n < len(enc); n++ {
		if _, err := decodeTweetBatch(enc[:n]); err == nil {
			t.Fatalf("decoding %d of %d bytes: no error", n, len(enc))
		}
	}
}

// BenchmarkEncodeTweetBatch encodes a batch of 500 tweets of 2 KB of JSON
// each, about what a read batch of the bench holds.
func BenchmarkEncodeTweetBatch(b *testing.B) {
	var batch TweetBatch
	for i := range 500 {
		json := []byte(fmt.Sprintf(`{"id_str":"%d","text":%q}`, i, strings.Repeat(fmt.Sprintf("word%d ", i), 300)))
		batch.Tweets = append(batch.Tweets, schemas.Tweet{ID: uint64(i), Text: "some text", JSON: json[:min(len(json), 2000)]})
	}
	b.ReportAllocs()
	for b.Loop() {
		encodeTweetBatch(batch)
	}
}
