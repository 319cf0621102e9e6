package query_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// pickPhrases returns phrases cut from the tweets' texts, so that they
// have answers: two and three adjacent words, a hashtag or mention and
// the word after it, a run of a script without spaces; and each
// two-word phrase reversed (its words, rarely adjacent that way).
func pickPhrases(t *testing.T, ctx context.Context, r sink.Reader) []string {
	t.Helper()
	var out []string
	var posts []transforms.Posting
	var tagged, cjk int
	i := 0
	err := r.ScanAll(ctx, schemas.TableRaw, func(_, v []byte) error {
		i++
		var dec schemas.Decoder
		var d schemas.Decoded
		dec.Decode(schemas.Record{Data: v}, &d)
		if len(d.Tweets) != 1 {
			return nil
		}
		posts = transforms.TextPostings(posts[:0], d.Tweets[0].Text)
		// The first term at each position.
		var words []string
		var at []int
		for _, p := range posts {
			if len(at) == 0 || at[len(at)-1] != p.Pos {
				words, at = append(words, p.Term), append(at, p.Pos)
			}
		}
		for k := 0; k+2 < len(words); k++ {
			adjacent := at[k+1] == at[k]+1 && at[k+2] == at[k]+2
			switch {
			case !adjacent:
			case i%97 == 0 && k == 1:
				out = append(out, words[k]+" "+words[k+1], words[k+1]+" "+words[k], words[k]+" "+words[k+1]+" "+words[k+2])
			case tagged < 4 && strings.ContainsAny(words[k][:1], "#@") && i%5 == 0:
				tagged++
				out = append(out, words[k]+" "+words[k+1])
			case cjk < 3 && len([]rune(words[k])) == 2 && words[k][0] >= 0xe0 && words[k+1][0] >= 0xe0 && i%7 == 0:
				cjk++ // bigrams: the run's characters, as a person types them
				out = append(out, words[k]+string([]rune(words[k+1])[1])+string([]rune(words[k+2])[1]))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tagged == 0 || cjk == 0 || len(out) < 10 {
		t.Fatalf("phrases %q: want hashtags, CJK runs and more phrases: pick other data", out)
	}
	return out
}

// TestPhrasesMatchScan runs in the short tier: phrases cut from the
// tweets, alone and with terms (AND, OR), over ranges and a language,
// each answered from the indexes (retrieved and counted) and by a scan
// of the raw tweets, whose check of the positions is its own.
// The store is asked as indexed (text rows with positions), then as a
// store indexed before positions were kept (rows without), and as one of
// both kinds (every other row without): each must answer alike.
func TestPhrasesMatchScan(t *testing.T) {
	ctx := context.Background()
	r := openStore(t)
	phrases := pickPhrases(t, ctx, r)
	phrases = append(phrases, "Edge, point!", "point edge", "edge   point 3", "edge a point", "no-such words here", "the the the")
	for _, c := range []struct {
		name  string
		every int
	}{{"with positions", 0}, {"without positions", 1}, {"half without", 2}} {
		t.Run(c.name, func(t *testing.T) {
			rc := r
			if c.every > 0 {
				rc = storeWithoutPositions(t, r, c.every)
			}
			phrasesMatchScan(t, rc, phrases)
		})
	}
}

// storeWithoutPositions copies the store r into a new one whose text term
// rows (every one, or every other: every 2) record no positions, as rows
// written before positions were kept.
func storeWithoutPositions(t *testing.T, r sink.Reader, every int) sink.Reader {
	t.Helper()
	ctx := context.Background()
	st, err := storeio.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	stripped, i := 0, 0
	for _, tb := range schemas.Tables {
		var cells []schemas.Cell
		err := r.ScanAll(ctx, tb, func(k, v []byte) error {
			c := schemas.Cell{Table: tb, Key: bytes.Clone(k), Value: bytes.Clone(v)}
			if tb == schemas.TableTerms {
				row, err := schemas.DecodeTerm(k, v)
				if err != nil {
					return err
				}
				if i++; row.Positioned && i%every == 0 {
					row.Positions, row.Positioned = nil, false
					c, stripped = row.Cell(), stripped+1
				}
			}
			cells = append(cells, c)
			return nil
		})
		if err == nil {
			err = st.Write(cells)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if stripped == 0 {
		t.Fatal("no term row records positions")
	}
	return st
}

func phrasesMatchScan(t *testing.T, r sink.Reader, phrases []string) {
	ctx := context.Background()
	e := query.NewEngine(r)
	sc := query.Scanner{R: r}
	filters := []query.Filter{
		{},
		{From: dataStart.Add(6 * time.Hour), To: dataStart.Add(30*time.Hour + 17*time.Second)},
		{Lang: "ja"},
	}
	found, fewer := 0, 0
	for fi, f := range filters {
		for pi, p := range phrases {
			searches := []query.Search{{Phrases: []string{p}, Op: query.And}}
			if fi == 0 {
				w := transforms.PhrasePostings(p)[0].Term
				searches = append(searches,
					query.Search{Terms: []string{"rt"}, Phrases: []string{p}, Op: query.And},
					query.Search{Terms: []string{"rt", "edge"}, Phrases: []string{p}, Op: query.Or},
					query.Search{Phrases: []string{p, phrases[(pi+1)%len(phrases)]}, Op: query.Or},
					query.Search{Terms: []string{w}, Op: query.And}, // the AND of its words holds more
				)
			}
			for si, s := range searches {
				s.Field = "text"
				name := fmt.Sprintf("filter %d, %q, search %d %+v", fi, p, si, s)
				want, err := sc.Search(ctx, f, s)
				if err != nil {
					t.Fatal(err)
				}
				var got []schemas.RowKey
				if err := e.Search(ctx, f, s, query.Page{}, func(h query.Hit) error { got = append(got, h.Key); return nil }); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: index %d tweets, scan %d", name, len(got), len(want))
				}
				n, err := e.CountSearch(ctx, f, s)
				if err != nil || n != int64(len(want)) {
					t.Errorf("%s: CountSearch %d, %v; scan %d", name, n, err, len(want))
				}
				if si == 0 && len(want) > 0 {
					found++
				}
			}
			// The phrase against the AND of its words.
			if fi == 0 {
				ws := transforms.QueryTerms(p, "text")
				and, err := sc.Terms(ctx, f, ws, query.And, "text")
				if err != nil {
					t.Fatal(err)
				}
				ph, _ := sc.Search(ctx, f, query.Search{Phrases: []string{p}, Field: "text"})
				if len(ph) > len(and) {
					t.Errorf("%q: %d tweets hold the phrase, %d its words", p, len(ph), len(and))
				}
				if len(ph) < len(and) {
					fewer++
				}
			}
		}
	}
	if found < len(phrases)/2 {
		t.Errorf("only %d phrase questions have answers: pick other phrases", found)
	}
	if fewer == 0 {
		t.Error("no phrase holds fewer tweets than the AND of its words: the check proves little")
	}
}

// TestPhraseEdges: a phrase of one word is that word as a term (hashtags
// named by entities alone included); a phrase of absent words, or of no
// word, finds nothing; a phrase searched in another field is an error;
// and a phrase's pages resume.
func TestPhraseEdges(t *testing.T) {
	ctx := context.Background()
	r := openStore(t)
	e := query.NewEngine(r)
	keys := func(s query.Search, p query.Page) []schemas.RowKey {
		t.Helper()
		s.Field = "text"
		var got []schemas.RowKey
		if err := e.Search(ctx, query.Filter{}, s, p, func(h query.Hit) error { got = append(got, h.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, w := range []string{"rt", "#far", "Edge", "  point, "} {
		one := keys(query.Search{Phrases: []string{w}}, query.Page{})
		term := keys(query.Search{Terms: []string{w}}, query.Page{})
		if !slices.Equal(one, term) || len(one) == 0 {
			t.Errorf("phrase %q: %d tweets, the term %d", w, len(one), len(term))
		}
	}
	for _, p := range []string{"no-such-word another-one", "a b", "!!", "point no-such-word"} {
		if got := keys(query.Search{Phrases: []string{p}}, query.Page{}); len(got) != 0 {
			t.Errorf("phrase %q: %d tweets, want none", p, len(got))
		}
	}
	if err := e.Search(ctx, query.Filter{}, query.Search{Phrases: []string{"a b"}, Field: "user"}, query.Page{}, func(query.Hit) error { return nil }); err == nil {
		t.Error("a phrase in the user field: no error")
	}
	if n := query.PhraseWords("climate, a change!"); n != 2 {
		t.Errorf("PhraseWords(climate, a change!) = %d, want 2", n)
	}

	// Pages: a phrase whose tweets the index's candidates outnumber.
	s := query.Search{Phrases: []string{pickPhrases(t, ctx, r)[0]}, Op: query.Or, Terms: []string{"edge"}}
	all := keys(s, query.Page{})
	if len(all) < 5 {
		t.Fatalf("%+v: %d tweets: pick a larger question", s, len(all))
	}
	var paged []schemas.RowKey
	page := query.Page{Limit: 2}
	for {
		got := keys(s, page)
		paged = append(paged, got...)
		if len(got) < page.Limit {
			break
		}
		last := got[len(got)-1]
		page.After = &last
	}
	if !slices.Equal(all, paged) {
		t.Errorf("pages of %+v put together: %d tweets, whole answer %d", s, len(paged), len(all))
	}
}
