package query

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Scanner answers the same questions as Engine by a full scan of the raw
// table: every stored tweet is decoded and tested. It is the reference the
// tests hold the index answers to, and what the benchmark times them
// against (the thesis's "scan" column).
type Scanner struct{ R sink.Reader }

// each calls fn for every tweet of the raw table in f's range (exact to
// the second, zero bounds open) and language.
func (sc Scanner) each(ctx context.Context, f Filter, fn func(*schemas.Tweet) error) error {
	from, to := int64(-1<<62), int64(1<<62)
	if !f.From.IsZero() {
		from = f.From.Unix()
	}
	if !f.To.IsZero() {
		to = f.To.Unix()
	}
	var d decoder
	return sc.R.ScanAll(ctx, schemas.TableRaw, func(key, value []byte) error {
		t, err := d.decode(key, value)
		if err != nil {
			return err
		}
		if t.CreatedAt < from || t.CreatedAt >= to || (f.Lang != "" && t.Lang != f.Lang) {
			return nil
		}
		return fn(t)
	})
}

// Count counts the tweets.
func (sc Scanner) Count(ctx context.Context, f Filter) (int64, error) {
	var n int64
	err := sc.each(ctx, f, func(*schemas.Tweet) error { n++; return nil })
	return n, err
}

// Series counts the tweets per step, zero-filled as Engine.Series.
func (sc Scanner) Series(ctx context.Context, f Filter, step time.Duration) ([]Point, error) {
	return sc.SeriesBy(ctx, f, step, false)
}

// SeriesBy counts the tweets per step (and language), zero-filled over
// the range as Engine.SeriesBy: an open bound is the minute of the first
// or after the last tweet of any language, as the frequency table gives
// the extent.
func (sc Scanner) SeriesBy(ctx context.Context, f Filter, step time.Duration, byLang bool) ([]Point, error) {
	c := newSeriesCounts()
	sec := int64(step / time.Second)
	first, last := int64(1<<62), int64(-1<<62)
	err := sc.each(ctx, Filter{}, func(t *schemas.Tweet) error {
		// The extent is every tweet's, whatever the filter, as the
		// frequency table gives it to the index.
		first, last = min(first, t.CreatedAt), max(last, t.CreatedAt)
		if !f.From.IsZero() && t.CreatedAt < f.From.Unix() || !f.To.IsZero() && t.CreatedAt >= f.To.Unix() || f.Lang != "" && t.Lang != f.Lang {
			return nil
		}
		lang := ""
		if byLang {
			lang = t.Lang
		}
		c.add(t.CreatedAt-floorMod(t.CreatedAt, sec), lang, 1)
		return nil
	})
	from, to := f.From.Unix(), f.To.Unix()
	if f.From.IsZero() {
		from = floorMinute(first)
	}
	if f.To.IsZero() {
		to = floorMinute(last) + 60
	}
	if first > last && (f.From.IsZero() || f.To.IsZero()) {
		return nil, err
	}
	return c.points(from, to, step, byLang), err
}

// hasTerms reports whether t holds every term of group in field, as the
// indexer tokenizes.
func hasTerms(t *schemas.Tweet, group []string, field string, scratch *[]transforms.Term) bool {
	*scratch = transforms.FieldTerms((*scratch)[:0], t, field)
	for _, term := range group {
		if !slices.ContainsFunc(*scratch, func(x transforms.Term) bool { return x.Term == term }) {
			return false
		}
	}
	return true
}

// CountTerm counts the tweets holding term in field.
func (sc Scanner) CountTerm(ctx context.Context, f Filter, term, field string) (int64, error) {
	keys, err := sc.Terms(ctx, f, []string{term}, And, field)
	return int64(len(keys)), err
}

// Terms returns the row keys, in order, of the tweets holding every term
// (And) or any (Or) in field; a term holds when every token it tokenizes
// to does, and a term of no tokens holds nowhere.
func (sc Scanner) Terms(ctx context.Context, f Filter, terms []string, op Op, field string) ([]schemas.RowKey, error) {
	var scratch []transforms.Term
	var keys []schemas.RowKey
	groups := queryGroups(terms, field)
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		n := 0
		for _, g := range groups {
			if len(g) > 0 && hasTerms(t, g, field, &scratch) {
				n++
			}
		}
		if (op == And && n == len(terms)) || (op == Or && n > 0) {
			keys = append(keys, t.RowKey)
		}
		return nil
	})
	sortKeys(keys)
	return keys, err
}

// Geo returns the geotagged tweets in box (all with box nil), as GeoHits
// in row key order.
func (sc Scanner) Geo(ctx context.Context, f Filter, box *Box) ([]GeoHit, error) {
	var hits []GeoHit
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		if !t.HasPoint || (t.PlaceCentre && !f.PlaceCentres) || (box != nil && !box.Contains(t.Lat, t.Lon)) {
			return nil
		}
		hits = append(hits, GeoHit{Key: t.RowKey, Lat: float32(t.Lat), Lon: float32(t.Lon), Kind: schemas.TweetPointKind(t)})
		return nil
	})
	slices.SortFunc(hits, func(a, b GeoHit) int { return bytes.Compare(a.Key[:], b.Key[:]) })
	return hits, err
}

// Tweets returns the row keys of the tweets, in order.
func (sc Scanner) Tweets(ctx context.Context, f Filter) ([]schemas.RowKey, error) {
	var keys []schemas.RowKey
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		keys = append(keys, t.RowKey)
		return nil
	})
	sortKeys(keys)
	return keys, err
}

// Users returns the distribution of tweets per user.
func (sc Scanner) Users(ctx context.Context, f Filter) ([]UserShare, error) {
	perUser := map[string]int64{}
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		perUser[strings.ToLower(t.ScreenName)]++
		return nil
	})
	return distribution(perUser), err
}

func sortKeys(keys []schemas.RowKey) {
	slices.SortFunc(keys, compareKeys)
}

// Export writes the stored JSON of the tweets as lines to w, in the raw
// table's scan order (row key order on the store), and returns how many.
func (sc Scanner) Export(ctx context.Context, f Filter, w io.Writer) (int64, error) {
	var n int64
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		n++
		return writeLine(w, t.JSON)
	})
	return n, err
}

// compareKeys orders row keys as the tables do.
func compareKeys(a, b schemas.RowKey) int {
	// As bytes.Compare, a word at a time: sorting the hits of a box
	// compares thousands of keys.
	if x, y := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8]); x != y {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(binary.BigEndian.Uint32(a[8:]), binary.BigEndian.Uint32(b[8:]))
}
