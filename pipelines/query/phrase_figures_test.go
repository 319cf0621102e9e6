package query

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// TestPhraseFigures measures phrases on the store -query.store names
// (skipped without one; make bench-query builds one): what the term
// positions in the index cost, and how fast phrases are answered.
//
//	go test -count=1 -v -timeout 60m -run '^TestPhraseFigures$' ./pipelines/query -args -query.store .tweetindex/benchq-1000000/store
//
// One pass over the stored tweets tokenizes each as the index does, with
// the text's positions (transforms.TermCells), and again with positions
// alone (TextPostings, what a phrase's check of a tweet does): it counts
// the term cells and their bytes, and the bytes the positions take in
// each text cell (its 0x00, a varint count, then varint deltas), and
// times both tokenizations. It counts the phrases of two and three words
// the texts hold and picks common and rare ones; each is then timed from
// the index (Search: the candidates from the term index, judged on their
// positions), as the AND of its words (Terms), as the candidates' lookup
// alone (with the judging) and the reading of the answer's tweets alone,
// and by a scan (Scanner).
func TestPhraseFigures(t *testing.T) {
	if *benchStore == "" {
		t.Skip("no -query.store: make bench-query builds one")
	}
	ctx := context.Background()
	st, err := storeio.OpenRead(*benchStore, storeio.ReadCacheSize)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := NewEngine(st)
	w := os.Stdout

	// The pass over the tweets.
	var (
		tweets, cells, textCells, cellBytes, posBytes int64
		tokTime, posTime                              time.Duration
		dec                                           decoder
		cellBuf                                       []schemas.Cell
		scratch                                       []transforms.Term
		posts                                         []transforms.Posting
		varint                                        [binary.MaxVarintLen64]byte
		cellPos                                       = map[string][]int{}
	)
	pairs, triples, df := map[string]int{}, map[string]int{}, map[string]int{}
	err = st.ScanAll(ctx, schemas.TableRaw, func(key, value []byte) error {
		tw, err := dec.decode(key, value)
		if err != nil {
			return err
		}
		tweets++
		start := time.Now()
		cellBuf, scratch = transforms.TermCells(cellBuf[:0], scratch, tw)
		tokTime += time.Since(start)
		cells += int64(len(cellBuf))
		for _, c := range cellBuf {
			cellBytes += int64(len(c.Key) + len(c.Value))
		}
		start = time.Now()
		posts = transforms.TextPostings(posts[:0], tw.Text)
		posTime += time.Since(start)
		// The positions of each text term, as its cell holds them: a
		// 0x00, a varint count, then varint deltas.
		clear(cellPos)
		for _, p := range posts {
			cellPos[p.Term] = append(cellPos[p.Term], p.Pos)
		}
		text := transforms.TweetTerms(scratch[:0], tw)
		textCells += int64(len(text))
		for _, term := range text {
			if strings.Trim(term.Term, "abcdefghijklmnopqrstuvwxyz") == "" {
				df[term.Term]++
			}
			ps := cellPos[term.Term]
			b, last := 1+binary.PutUvarint(varint[:], uint64(len(ps))), 0
			for _, p := range ps {
				b += binary.PutUvarint(varint[:], uint64(p-last))
				last = p
			}
			posBytes += int64(b)
		}
		// Phrases of two and three words: the first term of each position.
		var words []string
		var at []int
		for _, p := range posts {
			if len(at) == 0 || at[len(at)-1] != p.Pos {
				words, at = append(words, p.Term), append(at, p.Pos)
			}
		}
		for k := 0; k+1 < len(words); k++ {
			if at[k+1] == at[k]+1 {
				pairs[words[k]+" "+words[k+1]]++
				if k+2 < len(words) && at[k+2] == at[k]+2 && tweets%8 == 0 { // a sample: the triples are many
					triples[words[k]+" "+words[k+1]+" "+words[k+2]]++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "tweets %d; term cells %d (%.1f a tweet), %d bytes of keys and values (%.1f a cell)\n",
		tweets, cells, float64(cells)/float64(tweets), cellBytes, float64(cellBytes)/float64(cells))
	fmt.Fprintf(w, "text cells %d; positions as varints: %d bytes (%.2f a text cell), %.1f%% of the term cells' bytes\n",
		textCells, posBytes, float64(posBytes)/float64(textCells), 100*float64(posBytes)/float64(cellBytes))
	fmt.Fprintf(w, "tokenizing as the index does (all fields, the text's positions): %.2f s (%.2f µs a tweet); the text again with positions alone (TextPostings): %.2f s (%.2f µs a tweet)\n",
		tokTime.Seconds(), float64(tokTime.Microseconds())/float64(tweets), posTime.Seconds(), float64(posTime.Microseconds())/float64(tweets))
	fmt.Fprintf(w, "distinct phrases of two words %d, of three (1 tweet in 8) %d\n", len(pairs), len(triples))

	// The phrases: of two words the most common, one near 1,000 tweets,
	// one near 30, one of 1; of three the most common; the most common
	// of any script; the two words of the most tweets; the most common
	// beginning with a hashtag.
	type pc struct {
		p string
		n int
	}
	rank := func(m map[string]int) []pc {
		out := make([]pc, 0, len(m))
		for p, n := range m {
			out = append(out, pc{p, n})
		}
		slices.SortFunc(out, func(a, b pc) int { return cmp.Or(b.n-a.n, strings.Compare(a.p, b.p)) })
		return out
	}
	// Phrases of Latin words (the bench's most common pairs are of CJK
	// bigrams, a phrase of one run of characters).
	latin := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for p, n := range m {
			if strings.Trim(p, "abcdefghijklmnopqrstuvwxyz ") == "" {
				out[p] = n
			}
		}
		return out
	}
	rp, rt := rank(latin(pairs)), rank(latin(triples))
	near := func(n int) string {
		i, _ := slices.BinarySearchFunc(rp, n, func(x pc, n int) int { return n - x.n })
		return rp[min(i, len(rp)-1)].p
	}
	all2 := rank(pairs)
	// The worst case: the two words of the most tweets, as a phrase
	// (the AND of them is large, their phrase much smaller).
	top := rank(df)
	phrases := []string{rp[0].p, near(1000), near(30), near(1), rt[0].p, all2[0].p, top[0].p + " " + top[1].p}
	for _, x := range all2 {
		if strings.HasPrefix(x.p, "#") {
			phrases = append(phrases, x.p)
			break
		}
	}

	best := func(run func() (int, error)) (time.Duration, int) {
		var d time.Duration
		var n int
		for i := range 3 {
			start := time.Now()
			m, err := run()
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); i == 0 || took < d {
				d = took
			}
			n = m
		}
		return d, n
	}
	all, err := e.resolve(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	fmt.Fprintf(w, "\n%-40s %9s %9s %12s %12s %12s %12s %12s\n", "phrase (all 72 h)", "tweets", "AND", "phrase", "AND", "lookup", "read answer", "scan")
	for _, p := range phrases {
		s := Search{Phrases: []string{p}, Op: And, Field: "text"}
		words := transforms.QueryTerms(p, "text")
		retrieve := func(s Search) func() (int, error) {
			return func() (int, error) {
				n := 0
				err := e.Search(ctx, Filter{}, s, Page{}, func(Hit) error { n++; return nil })
				return n, err
			}
		}
		phraseT, hits := best(retrieve(s))
		andT, cands := best(retrieve(Search{Terms: words, Op: And, Field: "text"}))
		items, _ := s.items()
		var answer []schemas.RowKey
		lookupT, _ := best(func() (int, error) {
			n := 0
			err := e.termMatches(ctx, all, items, And, "text", nil, func(ks []schemas.RowKey, _ map[schemas.RowKey]bool) error { n += len(ks); return nil })
			return n, err
		})
		if err := e.Search(ctx, Filter{}, s, Page{}, func(h Hit) error { answer = append(answer, h.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		readT, _ := best(func() (int, error) {
			n := 0
			err := e.rows(ctx, answer, fetchChunk, func([]byte, [][]byte) error { n++; return nil })
			return n, err
		})
		start := time.Now()
		scanned, err := Scanner{R: st}.Search(ctx, Filter{}, s)
		if err != nil {
			t.Fatal(err)
		}
		scanT := time.Since(start)
		if len(scanned) != hits {
			t.Errorf("%q: the index finds %d tweets, the scan %d", p, hits, len(scanned))
		}
		fmt.Fprintf(w, "%-40q %9d %9d %12s %12s %12s %12s %12s\n", p, hits, cands, ms(phraseT), ms(andT), ms(lookupT), ms(readT), ms(scanT))
	}
}
