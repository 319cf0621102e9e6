package maintain

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// termDayStore is a store written cell by cell as a run writes it: raw,
// authors and term rows of tweets over three days in three languages,
// two pairs of which share a row key (a collision, with languages and
// words of their own), and the marks of their days.
type termDayStore struct {
	s      *sink.Sink
	tweets []schemas.Tweet // as decoded, with their row keys
	days   []uint16
}

func newTermDayStore(t *testing.T) *termDayStore {
	t.Helper()
	s, err := sink.Open(sink.Config{Store: filepath.Join(t.TempDir(), "store"), Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := &termDayStore{s: s}
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	langs := []string{"en", "fr", "ja"}
	words := []string{"alpha", "beta", "gamma", "delta", "#tag", "#other", "@pal", "@friend", "rt", "zeta"}
	var dec schemas.Decoder
	var out schemas.Decoded
	cells := []schemas.Cell{
		schemas.MetaRow{Name: schemas.AuthorsParam, Value: schemas.AuthorsValue}.Cell(),
		schemas.MetaRow{Name: schemas.TermDaysParam, Value: schemas.TermDaysValue}.Cell(),
	}
	for i := range 240 {
		at := day.Add(time.Duration(i) * 17 * time.Minute)
		id := uint64(at.UnixMilli()-1288834974657)<<22 | uint64(i)
		text := fmt.Sprintf("%s %s %s w%d", words[i%len(words)], words[(i*3+1)%len(words)], words[(i*7+2)%len(words)], i%13)
		urls := ""
		if i%4 == 0 {
			urls = fmt.Sprintf(`,"entities":{"urls":[{"url":"https://t.co/x","expanded_url":"https://site%d.example/p"}]}`, i%3)
		}
		line := fmt.Sprintf(`{"created_at":%q,"id_str":"%d","text":%q,"lang":%q,"user":{"name":"Name %d","screen_name":"user%d"}%s}`,
			at.Format(time.RubyDate), id, text, langs[i%3], i%5, i%7, urls)
		out.Reset()
		dec.Decode(schemas.Record{Data: []byte(line)}, &out)
		if len(out.Tweets) != 1 {
			t.Fatalf("line %s decodes to %d tweets", line, len(out.Tweets))
		}
		tw := out.Tweets[0]
		tw.JSON = []byte(line)
		tw.RowKey = tw.Key()
		if i == 11 || i == 101 {
			// The next tweet shares the row key of this one.
			ts.tweets = append(ts.tweets, tw)
			continue
		}
		if i == 12 || i == 102 {
			prev := ts.tweets[len(ts.tweets)-1]
			tw.RowKey = prev.RowKey
		}
		ts.tweets = append(ts.tweets, tw)
	}
	for i := range ts.tweets {
		tw := &ts.tweets[i]
		cells = append(cells, schemas.RawRow{Key: tw.RowKey, ID: tw.ID, JSON: tw.JSON}.Cell(), transforms.AuthorCell(tw))
		cells, _ = transforms.TermCells(cells, nil, tw)
		d := schemas.Day(tw.CreatedAt)
		if !slices.Contains(ts.days, d) {
			ts.days = append(ts.days, d)
		}
	}
	if err := s.Write(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	return ts
}

// mark marks the store's days for a recount.
func (ts *termDayStore) mark(t *testing.T) {
	t.Helper()
	var cells []schemas.Cell
	for _, d := range ts.days {
		cells = append(cells, schemas.MetaRow{Name: schemas.TermDayMark(d)}.Cell())
	}
	if err := ts.s.Write(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
}

// counts returns the store's per-day term counts, a line each, and fails
// if a mark is left.
func (ts *termDayStore) counts(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	ctx := context.Background()
	if err := ts.s.Scan(ctx, schemas.TableTermDays, nil, nil, func(key, value []byte) error {
		r, err := schemas.DecodeTermDay(key, value)
		fmt.Fprintf(&b, "%d %s %s %s %d\n", r.Day, r.Field, r.Term, r.Lang, r.Tweets)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := sink.ScanPrefix(ctx, ts.s, schemas.TableMeta, []byte(schemas.TermDayMarkPrefix), func(key, _ []byte) error {
		t.Errorf("mark %s left", key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// want returns the per-day term counts of the tweets, counted one by one
// (transforms.TermDayCounter), in the lines of counts.
func (ts *termDayStore) want(t *testing.T) string {
	t.Helper()
	byDay := map[uint16]*transforms.TermDayCounter{}
	for i := range ts.tweets {
		d := schemas.Day(ts.tweets[i].CreatedAt)
		if byDay[d] == nil {
			byDay[d] = &transforms.TermDayCounter{}
		}
		byDay[d].Add(&ts.tweets[i])
	}
	var cells []schemas.Cell
	for d, c := range byDay {
		cells = c.Cells(cells, d)
	}
	slices.SortFunc(cells, func(a, b schemas.Cell) int { return strings.Compare(string(a.Key), string(b.Key)) })
	var b strings.Builder
	for _, c := range cells {
		r, err := schemas.DecodeTermDay(c.Key, c.Value)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s %s %s %d\n", r.Day, r.Field, r.Term, r.Lang, r.Tweets)
	}
	return b.String()
}

// spoil writes wrong counts over some of the stored ones, deletes others
// and adds counts of terms no tweet holds, on the marked days.
func (ts *termDayStore) spoil(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	var cells []schemas.Cell
	n := 0
	if err := ts.s.Scan(ctx, schemas.TableTermDays, nil, nil, func(key, _ []byte) error {
		switch n++; n % 5 {
		case 0:
			cells = append(cells, schemas.Cell{Table: schemas.TableTermDays, Key: slices.Clone(key), Value: []byte("99")})
		case 1:
			cells = append(cells, schemas.Cell{Table: schemas.TableTermDays, Key: slices.Clone(key), Delete: true})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, d := range ts.days {
		for _, f := range schemas.TermDayFields() {
			for _, term := range []string{"", "#", "aaa", "m", "zzzz", "\uffff"} {
				cells = append(cells, schemas.TermDayRow{Day: d, Field: f, Term: term, Lang: "en", Tweets: 3}.Cell())
			}
		}
	}
	if err := ts.s.Write(ctx, cells); err != nil {
		t.Fatal(err)
	}
}

// TestTermDaysFromIndexAreTheRawRecounts: the per-day term counts
// recounted from the term index, in one range or cut into several, are
// those the raw recount writes and those of the tweets counted one by one
// (the colliding pairs' tweets each with its own language and words),
// whatever counts were stored before, in one pass or a pass a day; and
// after a tweet is removed.
func TestTermDaysFromIndexAreTheRawRecounts(t *testing.T) {
	ctx := context.Background()
	ts := newTermDayStore(t)
	want := ts.want(t)
	if !strings.Contains(want, " fr ") || !strings.Contains(want, " url ") || !strings.Contains(want, " mention ") {
		t.Fatalf("the counts want more fields and languages:\n%s", want)
	}
	ts.mark(t)
	if _, _, err := recountDaysEach(ctx, ts.s, ts.days, recountTermDay); err != nil {
		t.Fatal(err)
	}
	if got := ts.counts(t); got != want {
		t.Fatalf("the raw recount:\n%s\nwant the tweets' counts:\n%s", got, want)
	}
	defer func(f func(*storeio.Store, int) ([][]byte, error), most int) { splitTerms, maxPassTweets = f, most }(splitTerms, maxPassTweets)
	onePass := maxPassTweets
	for i, splits := range [][]string{nil, {"m"}, {"#other", "gamma", "user3", "w7"}, {"", "alpha", "alpha"}} {
		maxPassTweets = onePass
		if i%2 == 1 {
			maxPassTweets = 50 // a pass a day (about 80 tweets each)
		}
		splitTerms = func(*storeio.Store, int) ([][]byte, error) {
			var keys [][]byte
			for _, s := range splits {
				keys = append(keys, schemas.TermPrefix(s, "text"))
			}
			return keys, nil
		}
		ts.spoil(t)
		ts.mark(t)
		n, done, err := recountTermDaysFromIndex(ctx, ts.s, ts.days)
		if err != nil || !done || n == 0 {
			t.Fatalf("splits %q: %v, recounted %v, %d counts written; want the spoiled ones written again", splits, err, done, n)
		}
		if got := ts.counts(t); got != want {
			t.Errorf("splits %q: the recount from the index:\n%s\nwant:\n%s", splits, got, want)
		}
		ts.mark(t)
		if n, done, err = recountTermDaysFromIndex(ctx, ts.s, ts.days); err != nil || !done || n != 0 {
			t.Errorf("splits %q: a recount of counts as they are: %d written, %v, %v; want none", splits, n, done, err)
		}
	}

	// A tweet removed (its raw, authors and term rows), the counts of
	// its day recounted: the tweet's terms drop.
	gone := ts.tweets[40]
	ts.tweets = slices.Delete(ts.tweets, 40, 41)
	cells := []schemas.Cell{
		{Table: schemas.TableRaw, Key: schemas.RawRow{Key: gone.RowKey, ID: gone.ID}.Cell().Key, Delete: true},
		{Table: schemas.TableAuthors, Key: transforms.AuthorCell(&gone).Key, Delete: true},
	}
	terms, _ := transforms.TermCells(nil, nil, &gone)
	for _, c := range terms {
		cells = append(cells, schemas.Cell{Table: schemas.TableTerms, Key: c.Key, Delete: true})
	}
	cells = append(cells, schemas.MetaRow{Name: schemas.TermDayMark(schemas.Day(gone.CreatedAt))}.Cell())
	if err := ts.s.Write(ctx, cells); err != nil {
		t.Fatal(err)
	}
	want = ts.want(t)
	if _, _, err := recountTermDaysFromIndex(ctx, ts.s, []uint16{schemas.Day(gone.CreatedAt)}); err != nil {
		t.Fatal(err)
	}
	if got := ts.counts(t); got != want {
		t.Errorf("after a tweet is removed, the recount from the index:\n%s\nwant:\n%s", got, want)
	}
}
