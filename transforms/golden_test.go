package transforms

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/schemas"
)

func TestMain(m *testing.M) {
	// See pipelines/prism.go: prism must not split stateful bundles.
	*jobopts.Experiments = "prism_disable_sdf_split"
	ptest.Main(m)
}

// seedTweet is the seed's TermIndex example as a v1.1 stream tweet.
const seedTweet = `{"created_at":"Wed Oct 10 20:19:24 +0000 2018","id":1050118621198921728,"id_str":"1050118621198921728",` +
	`"text":"A tweet about #ApacheAccumulo and #ApacheFlink and","lang":"en",` +
	`"user":{"id_str":"1","name":"user1","screen_name":"u1scr"}}`

func decodeOne(t *testing.T, line string) schemas.Tweet {
	t.Helper()
	var dec schemas.Decoder
	var out schemas.Decoded
	dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "seed", Line: 1}, Data: []byte(line)}, &out)
	if len(out.Tweets) != 1 {
		t.Fatalf("decoded %d tweets, %d rejects (%v), want 1 tweet", len(out.Tweets), len(out.Rejects), out.Rejects)
	}
	tw := out.Tweets[0]
	tw.RowKey = tw.Key()
	return tw
}

// TestTermIndexSeedExample is the golden test of the seed's TermIndex
// example: exactly these terms, fields and frequencies, keyed by the
// tweet's row key.
func TestTermIndexSeedExample(t *testing.T) {
	tw := decodeOne(t, seedTweet)
	cells, _ := TermCells(nil, nil, &tw)
	var got []string
	for _, c := range cells {
		r, err := schemas.DecodeTerm(c.Key, c.Value)
		if err != nil {
			t.Fatal(err)
		}
		if r.Key != tw.RowKey {
			t.Errorf("term %q keyed by %s, want the tweet's row key %s", r.Term, r.Key, tw.RowKey)
		}
		got = append(got, fmt.Sprintf("%s/%s=%d", r.Field, r.Term, r.Freq))
	}
	slices.Sort(got)
	want := []string{
		"text/#apacheaccumulo=1", "text/#apacheflink=1", "text/about=1", "text/and=2",
		"text/apacheaccumulo=1", "text/apacheflink=1", "text/tweet=1",
		"user/u1scr=1", "user/user1=1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("terms of the seed tweet\n got %v\nwant %v", got, want)
	}
}

// TestRawRowKeyGolden pins the raw table's row key of the seed tweet: 8
// bytes of big-endian created_at seconds (2018-10-10T20:19:24Z =
// 1539202764 = 0x5bbe5ecc) and the big-endian Kafka murmur2 of the JSON;
// the raw cell's key is the row key and the tweet id (the qualifier), and
// the identity cell maps the id to the row key, and the authors cell, keyed
// as the raw cell, holds the language and the lower-cased screen name.
func TestRawRowKeyGolden(t *testing.T) {
	tw := decodeOne(t, seedTweet)
	want := fmt.Sprintf("000000005bbe5ecc%08x", schemas.Murmur2([]byte(seedTweet)))
	if got := tw.RowKey.String(); got != want {
		t.Errorf("row key %s, want %s", got, want)
	}
	const id = 1050118621198921728 // 0x0e92c5527c95b000
	cells := RawCells(nil, []schemas.Tweet{tw})
	if len(cells) != 3 {
		t.Fatalf("%d cells, want raw, identity and authors", len(cells))
	}
	raw, ident, author := cells[0], cells[1], cells[2]
	if author.Table != schemas.TableAuthors || string(author.Key) != string(raw.Key) || string(author.Value) != "\x02enu1scr" {
		t.Errorf("authors cell %c %x = %q, want the raw cell's key and %q", author.Table, author.Key, author.Value, "\x02enu1scr")
	}
	if raw.Table != schemas.TableRaw || string(raw.Value) != seedTweet || fmt.Sprintf("%x", raw.Key) != want+"0e92c5527c95b000" {
		t.Errorf("raw cell %c %x = %q, want key %s0e92c5527c95b000 and the tweet's bytes", raw.Table, raw.Key, raw.Value, want)
	}
	if ident.Table != schemas.TableIdentity || fmt.Sprintf("%x", ident.Key) != fmt.Sprintf("%016x", id) || fmt.Sprintf("%x", ident.Value) != want {
		t.Errorf("identity cell %c %x = %x, want key %016x and value %s", ident.Table, ident.Key, ident.Value, id, want)
	}
}

// TestTweetFrequencyGolden runs Parse, Dedup and TweetFrequency on prism:
// per minute and language, the number of distinct tweets; a duplicate, and
// the tweet's copy in a second file, are counted once.
func TestTweetFrequencyGolden(t *testing.T) {
	tweet := func(id int, at, lang string) string {
		return fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":"t%d","lang":%q,"user":{"name":"n","screen_name":"s"}}`, at, id, id, lang)
	}
	lines := []string{
		tweet(1, "Wed Oct 10 20:19:24 +0000 2018", "en"),
		tweet(2, "Wed Oct 10 20:19:59 +0000 2018", "en"),
		tweet(1, "Wed Oct 10 20:19:24 +0000 2018", "en"), // duplicate
		tweet(3, "Wed Oct 10 20:19:00 +0000 2018", "ja"),
		tweet(4, "Wed Oct 10 20:20:00 +0000 2018", "en"),
		tweet(5, "Wed Oct 10 21:00:01 +0000 2018", "es"),
	}
	var file1, file2 []schemas.Record
	for i, l := range lines {
		file1 = append(file1, schemas.Record{Origin: schemas.Origin{Source: "a.jsonl", Line: int64(i + 1)}, Data: []byte(l)})
	}
	file2 = append(file2, schemas.Record{Origin: schemas.Origin{Source: "b.jsonl", Line: 1}, Data: []byte(lines[1])})

	p, s := beam.NewPipelineWithRoot()
	recs := beam.Create(s, file1, file2)
	keyed, _ := beam.ParDo2(s, &ParseFn{Shards: 4}, recs)
	cells := TweetFrequency(s, Dedup(s, keyed, 0))
	rows := beam.WindowInto(s, window.NewGlobalWindows(), beam.ParDo(s, frequencyRowString, cells))
	passert.Equals(s, rows,
		"201810102019/en=2", "201810102019/ja=1", "201810102020/en=1", "201810102100/es=1")
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
}

func frequencyRowString(cells []schemas.Cell, emit func(string)) error {
	for _, c := range cells {
		r, err := schemas.DecodeFrequency(c.Key, c.Value)
		if err != nil {
			return err
		}
		emit(fmt.Sprintf("%s/%s=%d", r.Minute, r.Lang, r.Count))
	}
	return nil
}

func init() {
	register.Function2x1(frequencyRowString)
}
