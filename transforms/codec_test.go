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
// (ShareBatchesInProcess), a batch crosses as a handle that decodes to the
// batch itself, once; otherwise, as its encoding. Both decode either way.
func TestTweetBatchHeldInProcess(t *testing.T) {
	in := TweetBatch{Tweets: []schemas.Tweet{{ID: 1, CreatedAt: 1_700_000_000, Lang: "en", Text: "hi", JSON: []byte(`{"id_str":"1"}`)}}, Deletes: []uint64{7}}

	stop := ShareBatchesInProcess()
	stop2 := ShareBatchesInProcess() // two runs at once
	held := encodeTweetBatch(in)
	stop()
	stop() // again: no effect
	held2 := encodeTweetBatch(in)
	stop2()
	full := encodeTweetBatch(in)
	if held2[0] != batchHeld {
		t.Fatalf("one of two runs stopped sharing: encoding kind %d, want %d (the other still shares)", held2[0], batchHeld)
	}
	if _, err := decodeTweetBatch(held2); err != nil {
		t.Fatal(err)
	}
	if held[0] != batchHeld || len(held) > 1+binary.MaxVarintLen64 {
		t.Fatalf("shared: encoded as %d bytes, kind %d; want a handle (kind %d)", len(held), held[0], batchHeld)
	}
	if full[0] != batchS2 {
		t.Fatalf("not shared: encoding kind %d, want %d", full[0], batchS2)
	}
	for _, enc := range [][]byte{held, full} {
		out, err := decodeTweetBatch(enc)
		if err != nil {
			t.Fatalf("kind %d: %v", enc[0], err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("kind %d: round trip\n got %+v\nwant %+v", enc[0], out, in)
		}
	}
	// The batch itself, not a copy; and once only: a second decode (or
	// one in another process) fails instead of reading nothing.
	if _, err := decodeTweetBatch(held); !errors.Is(err, errBatchNotHeld) {
		t.Errorf("decoding a handle twice: %v, want errBatchNotHeld", err)
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
