package cassandraio

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestScanMatchesStore writes the same cells to the CQL test server and to
// the embedded store, and reads key ranges of every table from both:
// Scan walks the partitions of a range and gives the store's cells, in
// the store's order; Lookup of a raw row key alone gives its tweet.
// nextRowKey returns the row key after k: the end of the keys k begins.
func nextRowKey(k schemas.RowKey) []byte {
	for i := len(k) - 1; i >= 0; i-- {
		if k[i]++; k[i] != 0 {
			break
		}
	}
	return k[:]
}

func TestScanMatchesStore(t *testing.T) {
	tg := newServerTarget(t, nil)
	cells := append(testCells(400, 5), moreTables(400, 5)...)
	if _, err := writeAll(t, tg.cfg, cells); err != nil {
		t.Fatal(err)
	}
	st, err := storeio.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Write(cells); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(tg.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()

	// Times of the data: testCells spreads tweets over 3 hours from base.
	var raws []schemas.RowKey
	var geo []byte
	for _, c := range cells {
		switch c.Table {
		case schemas.TableRaw:
			raws = append(raws, schemas.RowKey(c.Key[:schemas.RowKeyLen]))
		case schemas.TableGeo:
			if geo == nil {
				geo = c.Key
			}
		}
	}
	base := raws[0].Seconds() - raws[0].Seconds()%3600
	at := func(sec int64) []byte { k := schemas.RowKeyStart(sec); return k[:] }
	termKey := func(term string, sec int64, tail ...byte) []byte {
		return append(binary.BigEndian.AppendUint64(schemas.TermPrefix(term, "text"), uint64(sec)), tail...)
	}
	geoPrefix := geo[:3]
	day := schemas.Day(base)
	edgePrefix := schemas.EdgePrefix(schemas.EdgeMention, day)
	hashtags := schemas.TermDayPrefix(day, schemas.TermFieldHashtag)
	within := func(p []byte, tail string) []byte { return append(bytes.Clone(p), tail...) }
	ranges := []struct {
		table      schemas.Table
		start, end []byte
	}{
		{schemas.TableRaw, at(base - 3600), at(base + 5*3600)},
		{schemas.TableRaw, at(base + 1800 + 17), at(base + 1800 + 17 + 7*60 + 3)},
		{schemas.TableRaw, raws[7][:], append(bytes.Clone(raws[7][:]), 0xff)}, // one row key
		{schemas.TableRaw, raws[9][:], nextRowKey(raws[9])},                   // its tweets, a slice of one partition
		{schemas.TableRaw, nil, nil},                                          // whole tables, in key order
		{schemas.TableTerms, nil, nil},
		{schemas.TableFrequency, nil, nil},
		{schemas.TableGeo, nil, nil},
		{schemas.TableTerms, termKey("the", base-7200), termKey("the", base+4*3600)},
		{schemas.TableTerms, termKey("#breaking", base+1234), termKey("#breaking", base+5000, 0xff)},
		{schemas.TableTerms, termKey("東京", base-1), termKey("東京", base+9000)},
		{schemas.TableFrequency, []byte(schemas.Minute(base - 86400)), []byte(schemas.Minute(base + 2*86400))},
		{schemas.TableFrequency, []byte(schemas.Minute(base+600) + "es"), []byte(schemas.Minute(base + 3000))},
		{schemas.TableGeo, geoPrefix, append(bytes.Clone(geoPrefix), 0xff)},
		{schemas.TableGeo, append(bytes.Clone(geoPrefix), geo[3:5]...), append(bytes.Clone(geoPrefix), geo[3], geo[4]+1)},
		{schemas.TableMeta, []byte("param/"), []byte("param0")},
		{schemas.TableAuthors, at(base - 3600), at(base + 5*3600)},
		{schemas.TableAuthors, at(base + 1800 + 17), at(base + 1800 + 17 + 7*60 + 3)},
		{schemas.TableAuthors, nil, nil},
		{schemas.TableEdges, nil, nil},
		{schemas.TableEdges, edgePrefix, within(edgePrefix, "\xff")},
		{schemas.TableEdges, within(edgePrefix, "u1"), within(edgePrefix, "u2")},
		{schemas.TableTermDays, nil, nil},
		{schemas.TableTermDays, hashtags, nextKey(hashtags)},
		{schemas.TableTermDays, within(hashtags, "#b"), within(hashtags, "#c")},
		{schemas.TableTermDays, within(hashtags, "#c\x00"), nextKey(hashtags)},
		{schemas.TableEdgeDays, nil, nil},
		{schemas.TableEdgeDays, edgePrefix, within(edgePrefix, "\xff")},
		{schemas.TableEdgeDays, edgePrefix, nextKey(edgePrefix)},
		{schemas.TableEdgeDays, within(edgePrefix, "u1"), within(edgePrefix, "u2")},
		{schemas.TableDeadLetter, nil, nil},
	}
	dump := func(scan func(fn func(k, v []byte) error) error) (string, int) {
		var b strings.Builder
		n := 0
		if err := scan(func(k, v []byte) error { n++; fmt.Fprintf(&b, "%x=%x\n", k, v); return nil }); err != nil {
			t.Fatal(err)
		}
		return b.String(), n
	}
	for _, rg := range ranges {
		want, n := dump(func(fn func(k, v []byte) error) error { return st.Scan(ctx, rg.table, rg.start, rg.end, fn) })
		got, _ := dump(func(fn func(k, v []byte) error) error { return r.Scan(ctx, rg.table, rg.start, rg.end, fn) })
		if n == 0 {
			t.Errorf("%s [%q, %q): the store holds no cells; pick a range with some", rg.table.Name(), rg.start, rg.end)
		}
		if got != want {
			t.Errorf("%s [%q, %q): Cassandra's range differs from the store's:\n%s\nwant (%d cells):\n%s", rg.table.Name(), rg.start, rg.end, got, n, want)
		}
	}
	if err := r.Scan(ctx, schemas.TableTerms, []byte("no separators"), []byte("x"), func(k, v []byte) error { return nil }); err == nil {
		t.Error("Scan of a term range without a term and field: no error")
	}
	for _, k := range raws[:20] {
		want, wok, werr := st.Lookup(ctx, schemas.TableRaw, k[:])
		got, gok, gerr := r.Lookup(ctx, schemas.TableRaw, k[:])
		if werr != nil || gerr != nil || !wok || gok != wok || !bytes.Equal(got, want) {
			t.Fatalf("Lookup of row key %x: Cassandra %v %v, store %v %v", k, gok, gerr, wok, werr)
		}
	}
	if _, ok, err := r.Lookup(ctx, schemas.TableRaw, at(base - 1)[:schemas.RowKeyLen]); ok || err != nil {
		t.Errorf("Lookup of a missing row key: %v, %v", ok, err)
	}
}

// nextKey returns the first key after every key that begins with p.
func nextKey(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i]++; end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// moreTables returns cells of the tables testCells leaves out (authors,
// edges, per-day term counts and edge weights), over the same 3 hours.
func moreTables(n int, seed uint64) []schemas.Cell {
	rng := rand.New(rand.NewPCG(seed, 11))
	base := time.Date(2018, 10, 10, 20, 0, 0, 0, time.UTC).Unix()
	var cells []schemas.Cell
	for i := 0; i < n; i++ {
		sec := base + int64(rng.IntN(3*3600))
		key := schemas.NewRowKey(sec, fmt.Appendf(nil, "tweet %d", i))
		id := uint64(1e18) + uint64(i)
		user := fmt.Sprintf("u%d", rng.IntN(30))
		cells = append(cells, schemas.AuthorRow{Key: key, ID: id, Lang: "en", ScreenName: user}.Cell())
		for e := range 1 + rng.IntN(3) {
			typ := schemas.EdgeTypes()[rng.IntN(len(schemas.EdgeTypes()))]
			cells = append(cells, schemas.EdgeRow{Type: typ, Source: user, Target: fmt.Sprintf("u%d", rng.IntN(30)+e), Key: key, ID: id}.Cell())
		}
	}
	day := schemas.Day(base)
	weights := map[string]int64{}
	for _, c := range cells {
		if k, ok := schemas.EdgeDayKeyOf(c.Key); ok && c.Table == schemas.TableEdges {
			weights[string(k)]++
		}
	}
	for k, n := range weights {
		cells = append(cells, schemas.Cell{Table: schemas.TableEdgeDays, Key: []byte(k), Value: fmt.Appendf(nil, "%d", n)})
	}
	for _, field := range schemas.TermDayFields() {
		for i := range 60 {
			term := fmt.Sprintf("t%d", i)
			if field == schemas.TermFieldHashtag {
				term = fmt.Sprintf("#%c%d", 'a'+rune(i%5), i)
			}
			for _, lang := range []string{"en", "ja"} {
				cells = append(cells, schemas.TermDayRow{Day: day + uint16(i%2), Field: field, Term: term, Lang: lang, Tweets: int64(1 + rng.IntN(9))}.Cell())
			}
		}
	}
	return cells
}
