package transforms

import (
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
