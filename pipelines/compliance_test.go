package pipelines

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// snowflake returns the Snowflake tweet id of a tweet created at t.
func snowflake(t time.Time, seq int) uint64 {
	return uint64(t.UnixMilli()-1288834974657)<<22 | uint64(seq)
}

// v1Tweet returns a v1.1 tweet line; lat/lon 0 means no coordinates.
func v1Tweet(id uint64, at time.Time, text string, lat, lon float64) string {
	geo := ""
	if lat != 0 || lon != 0 {
		geo = fmt.Sprintf(`,"coordinates":{"type":"Point","coordinates":[%g,%g]}`, lon, lat)
	}
	return fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":%q,"lang":"en","user":{"name":"n","screen_name":"s"}%s}`,
		at.Format(time.RubyDate), id, text, geo)
}

// checkAuthorsFollowRaw checks that the authors table holds one row per
// raw cell, with the raw cell's row key and tweet id, and the language
// and lower-cased screen name that decoding the stored tweet gives: no
// more (rows of deleted or replaced versions), no fewer.
func checkAuthorsFollowRaw(t *testing.T, dump map[string]string) {
	t.Helper()
	want := map[string]string{}
	var dec schemas.Decoder
	var out schemas.Decoded
	for _, r := range rows(t, dump["raw"]) {
		out.Reset()
		dec.Decode(schemas.Record{Data: []byte(r["json"].(string))}, &out)
		if len(out.Tweets) != 1 {
			t.Fatalf("raw row %v does not decode to one tweet", r)
		}
		tw := out.Tweets[0]
		want[r["row_key"].(string)+"/"+r["tweet_id"].(string)] = tw.Lang + " " + strings.ToLower(tw.ScreenName)
	}
	got := map[string]string{}
	for _, r := range rows(t, dump["authors"]) {
		got[r["row_key"].(string)+"/"+r["tweet_id"].(string)] = r["lang"].(string) + " " + r["screen_name"].(string)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("authors rows %v, want one per raw row: %v", got, want)
	}
}

func writeLines(t *testing.T, path string, lines ...string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// storedIDs returns the tweet ids of the raw table, and checks that every
// term and geo row points at a stored row key and that the authors table
// follows the raw table (checkAuthorsFollowRaw).
func storedIDs(t *testing.T, dump map[string]string) []string {
	t.Helper()
	checkAuthorsFollowRaw(t, dump)
	keys := map[string]bool{}
	var ids []string
	for _, r := range rows(t, dump["raw"]) {
		keys[r["row_key"].(string)] = true
		ids = append(ids, r["tweet_id"].(string))
	}
	for _, table := range []string{"terms", "geo"} {
		for _, r := range rows(t, dump[table]) {
			if !keys[r["row_key"].(string)] {
				t.Errorf("%s row %v points at a row key the raw table does not hold", table, r)
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// TestVersionsAcrossRuns indexes two versions of one tweet (other text,
// other point: other bytes, so another row key) in two runs, in both
// orders: the later run's version replaces the earlier one, with its raw,
// term and geo rows; re-running the same input changes nothing. Within one
// run the version with the smaller row key is stored whatever the order of
// the files.
func TestVersionsAcrossRuns(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 12, 0, 7, 0, time.UTC)
	id := snowflake(at, 1)
	other := v1Tweet(snowflake(at, 2), at, "another tweet", 0, 0)
	v1 := v1Tweet(id, at, "first words here", 10, 20)
	v2 := v1Tweet(id, at, "second version now", 30, 40)
	dir := tempDir(t)
	f1 := writeLines(t, filepath.Join(dir, "v1.jsonl"), v1, other)
	f2 := writeLines(t, filepath.Join(dir, "v2.jsonl"), v2)
	key := func(line string) string { return schemas.NewRowKey(at.Unix(), []byte(line)).String() }

	for _, order := range [][2]string{{f1, f2}, {f2, f1}} {
		store := filepath.Join(tempDir(t), "store")
		runPipeline(t, Config{Store: store, Input: order[0]})
		sum := runPipeline(t, Config{Store: store, Input: order[1]})
		if sum.Retracted != 1 {
			t.Errorf("second run retracted %d versions, want 1", sum.Retracted)
		}
		dump := dumpStore(t, store)
		if got := storedIDs(t, dump); len(got) != 2 {
			t.Errorf("raw table holds ids %v, want 2 tweets", got)
		}
		last := v2
		if order[1] == f1 {
			last = v1
		}
		var found bool
		for _, r := range rows(t, dump["raw"]) {
			if r["tweet_id"] == fmt.Sprint(id) {
				found = r["row_key"] == key(last)
			}
		}
		if !found {
			t.Errorf("runs %s then %s: the stored version is not the later run's", filepath.Base(order[0]), filepath.Base(order[1]))
		}
		if n := len(rows(t, dump["geo"])); n != 1 {
			t.Errorf("geo table holds %d rows, want the later version's 1", n)
		}
		runPipeline(t, Config{Store: store, Input: order[1]})
		diffTables(t, dump, dumpStore(t, store), "two runs", "the second run again")
	}

	// Both versions in one run: the smaller row key wins, in either order.
	want := key(v1)
	if key(v2) < want {
		want = key(v2)
	}
	var first map[string]string
	for _, order := range [][2]string{{f1, f2}, {f2, f1}} {
		store := filepath.Join(tempDir(t), "store")
		both := writeLines(t, filepath.Join(tempDir(t), "both.jsonl"), readFile(t, order[0]), readFile(t, order[1]))
		runPipeline(t, Config{Store: store, Input: both})
		dump := dumpStore(t, store)
		storedIDs(t, dump)
		if !strings.Contains(dump["raw"], want) {
			t.Errorf("one run over both versions did not keep the smaller row key %s:\n%s", want, dump["raw"])
		}
		if first == nil {
			first = dump
		} else {
			diffTables(t, first, dump, "v1 first", "v2 first")
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// TestDeletesApplied deletes tweets with compliance messages: a v1.1
// delete after its tweet in the same file, a v2 compliance event before
// its tweet, and a delete in a later run. Deleted tweets leave the raw,
// term and geo tables; a later run over the older file does not bring
// them back.
func TestDeletesApplied(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var ids [4]uint64
	var lines []string
	for i := range ids {
		ids[i] = snowflake(at.Add(time.Duration(i)*time.Second), i)
	}
	dir := tempDir(t)
	lines = append(lines,
		fmt.Sprintf(`{"id":"%d","action":"delete","created_at":"2026-11-02T00:00:00.000Z","reason":"deleted"}`, ids[2]),
		v1Tweet(ids[0], at, "kept tweet", 1, 1),
		v1Tweet(ids[1], at.Add(time.Second), "deleted after", 2, 2),
		v1Tweet(ids[2], at.Add(2*time.Second), "deleted before", 3, 3),
		v1Tweet(ids[3], at.Add(3*time.Second), "deleted later", 4, 4),
		fmt.Sprintf(`{"delete":{"status":{"id":%d,"id_str":"%d","user_id":1,"user_id_str":"1"},"timestamp_ms":"1793000000000"}}`, ids[1], ids[1]),
	)
	old := writeLines(t, filepath.Join(dir, "tweets.jsonl"), lines...)
	store := filepath.Join(tempDir(t), "store")
	sum := runPipeline(t, Config{Store: store, Input: old})
	if got := storedIDs(t, dumpStore(t, store)); fmt.Sprint(got) != fmt.Sprint([]string{fmt.Sprint(ids[0]), fmt.Sprint(ids[3])}) {
		t.Errorf("after the first run the raw table holds %v, want %d and %d", got, ids[0], ids[3])
	}
	if sum.SkippedBy["compliance"] != 2 {
		t.Errorf("summary %+v: want 2 compliance messages skipped", sum)
	}
	if n := frequencyTotal(t, dumpStore(t, store)); n != 2 {
		t.Errorf("after the first run the frequency table counts %d tweets, want the 2 stored (counts follow deletions)", n)
	}

	later := writeLines(t, filepath.Join(dir, "later.jsonl"), fmt.Sprintf(`{"delete":{"status":{"id_str":"%d"}}}`, ids[3]))
	runPipeline(t, Config{Store: store, Input: later})
	sum = runPipeline(t, Config{Store: store, Input: old}) // the older file again
	dump := dumpStore(t, store)
	if got := storedIDs(t, dump); fmt.Sprint(got) != fmt.Sprint([]string{fmt.Sprint(ids[0])}) {
		t.Errorf("after the later delete and the old file again the raw table holds %v, want only %d", got, ids[0])
	}
	if sum.SkippedBy["deleted"] != 3 {
		t.Errorf("old file again: summary %+v, want its 3 deleted tweets skipped as deleted", sum)
	}
	for _, table := range []string{"terms", "geo"} {
		for _, word := range []string{"deleted", "later", "before", "after"} {
			if table == "terms" && strings.Contains(dump[table], `"term":"`+word+`"`) {
				t.Errorf("terms table still holds %q of a deleted tweet", word)
			}
		}
	}
	if n := len(rows(t, dump["geo"])); n != 1 {
		t.Errorf("geo table holds %d rows, want the kept tweet's 1", n)
	}
	if n := frequencyTotal(t, dump); n != 1 {
		t.Errorf("the frequency table counts %d tweets, want the 1 stored", n)
	}
}

// frequencyTotal returns the sum of the frequency table's counts.
func frequencyTotal(t *testing.T, dump map[string]string) int64 {
	t.Helper()
	var n int64
	for _, r := range rows(t, dump["frequency"]) {
		n += int64(r["count"].(float64))
	}
	return n
}

// TestCollidingTweetsBothStored indexes two tweets of one second whose
// JSON has the same 32-bit murmur2, so the same row key: both are stored
// and the collision is counted.
func TestCollidingTweetsBothStored(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	seen := map[uint32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		line := v1Tweet(snowflake(at, i%4096)+uint64(i/4096)<<12, at, fmt.Sprintf("collide %d", i), 0, 0)
		h := schemas.Murmur2([]byte(line))
		if prev, ok := seen[h]; ok {
			a, b = prev, line
		}
		seen[h] = line
	}
	in := writeLines(t, filepath.Join(tempDir(t), "pair.jsonl"), a, b, a)
	store := filepath.Join(tempDir(t), "store")
	sum := runPipeline(t, Config{Store: store, Input: in})
	if sum.Indexed != 2 || sum.Duplicates != 1 || sum.Collisions != 1 {
		t.Errorf("summary %+v: want 2 indexed, 1 duplicate, 1 collision", sum)
	}
	if got := storedIDs(t, dumpStore(t, store)); len(got) != 2 {
		t.Errorf("raw table holds %v, want both tweets", got)
	}
}

// v1TweetBy is v1Tweet by user id user.
func v1TweetBy(id uint64, at time.Time, text string, lat, lon float64, user uint64) string {
	return strings.Replace(v1Tweet(id, at, text, lat, lon), `"user":{`, fmt.Sprintf(`"user":{"id_str":"%d",`, user), 1)
}

// checkScrubGeo indexes geotagged tweets of three users, then scrub_geo
// and withheld notices (a v2 scrub_geo in the same file as its tweet, a
// v1.1 one in a later file): the geo rows of the scrubbed tweets go (the
// user's up to the given id, and the v2 event's tweet), the rest stay
// with every raw row; each notice is recorded in the metadata table and
// counted; no scrub mark is left.
func checkScrubGeo(t *testing.T, cfg Config, dump func() map[string]string, meta func() string) {
	t.Helper()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var ids [5]uint64
	for i := range ids {
		ids[i] = snowflake(at.Add(time.Duration(i)*time.Second), i)
	}
	const alice, bob, carol = 111, 222, 333
	dir := tempDir(t)
	first := writeLines(t, filepath.Join(dir, "tweets.jsonl"),
		v1TweetBy(ids[0], at, "alice one", 1, 1, alice),
		v1TweetBy(ids[1], at.Add(time.Second), "alice two", 2, 2, alice),
		v1TweetBy(ids[2], at.Add(2*time.Second), "alice three", 3, 3, alice),
		v1TweetBy(ids[3], at.Add(3*time.Second), "bob one", 4, 4, bob),
		v1TweetBy(ids[4], at.Add(4*time.Second), "carol one", 5, 5, carol),
		fmt.Sprintf(`{"id":"%d","action":"scrub_geo","created_at":"2026-11-02T00:00:00.000Z"}`, ids[4]),
	)
	run := cfg
	run.Input = first
	sum := runPipeline(t, run)
	if sum.Notices != 1 || sum.GeoScrubbed != 1 {
		t.Errorf("first run: %d notices, %d geo rows scrubbed; want 1 and 1 (the v2 event's tweet)", sum.Notices, sum.GeoScrubbed)
	}
	later := writeLines(t, filepath.Join(dir, "notices.jsonl"),
		fmt.Sprintf(`{"scrub_geo":{"user_id":%d,"user_id_str":"%d","up_to_status_id":1,"up_to_status_id_str":"%d"}}`, alice, alice, ids[1]),
		fmt.Sprintf(`{"status_withheld":{"id":%d,"user_id":%d,"withheld_in_countries":["DE"]}}`, ids[3], bob),
		fmt.Sprintf(`{"user_withheld":{"id":%d,"withheld_in_countries":["DE","FR"]}}`, bob),
		fmt.Sprintf(`{"id":"%d","action":"withheld","created_at":"2026-11-02T00:00:00.000Z","withheld_in_countries":["TR"]}`, ids[2]),
	)
	run.Input = later
	sum = runPipeline(t, run)
	if sum.Notices != 4 || sum.GeoScrubbed != 2 || sum.SkippedBy["compliance"] != 4 {
		t.Errorf("second run: %+v; want 4 notices (skipped as compliance), 2 geo rows scrubbed (alice's first two)", sum)
	}
	tables := dump()
	if got := storedIDs(t, tables); len(got) != 5 {
		t.Errorf("raw table holds %v, want all 5 tweets (scrub_geo removes locations, not tweets)", got)
	}
	var lats []float64
	for _, r := range rows(t, tables["geo"]) {
		lats = append(lats, r["lat"].(float64))
	}
	sort.Float64s(lats)
	if fmt.Sprint(lats) != "[3 4]" {
		t.Errorf("geo rows at latitudes %v, want [3 4] (alice's third tweet, after up_to, and bob's)", lats)
	}
	m := meta()
	for _, want := range []string{
		fmt.Sprintf(`"name":"notice/scrub_geo/%020d/%020d"`, uint64(alice), ids[1]),
		fmt.Sprintf(`"name":"notice/scrub_geo/%020d/%020d"`, ids[4], uint64(math.MaxUint64)),
		fmt.Sprintf(`"name":"notice/status_withheld/%020d"`, ids[3]),
		fmt.Sprintf(`"name":"notice/user_withheld/%020d"`, uint64(bob)),
		fmt.Sprintf(`"name":"notice/withheld/%020d"`, ids[2]),
	} {
		if !strings.Contains(m, want) {
			t.Errorf("meta table lacks %s:\n%s", want, m)
		}
	}
	if strings.Contains(m, `"name":"scrubgeo/`) {
		t.Errorf("a scrub_geo mark is left after the run:\n%s", m)
	}
}

func TestScrubGeoAndWithheldStore(t *testing.T) {
	t.Parallel()
	store := filepath.Join(tempDir(t), "store")
	checkScrubGeo(t, Config{Store: store}, func() map[string]string { return dumpStore(t, store) }, func() string {
		tables, err := sink.Open(sink.Config{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		defer tables.Close()
		return dumpMeta(t, tables)
	})
}

func TestScrubGeoAndWithheldCassandra(t *testing.T) {
	t.Parallel()
	_, cfg := startCQL(t)
	checkScrubGeo(t, Config{Cassandra: cfg}, func() map[string]string { return dumpCassandra(t, cfg) }, func() string {
		tables, err := sink.Open(sink.Config{Cassandra: cfg})
		if err != nil {
			t.Fatal(err)
		}
		defer tables.Close()
		return dumpMeta(t, tables)
	})
}

// dumpMeta returns the dump of the metadata table.
func dumpMeta(t *testing.T, src sink.Reader) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if _, err := maintain.DumpRows(context.Background(), src, schemas.TableMeta, func(row any) error { return enc.Encode(row) }); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
