package query

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Scanner answers the same questions as Engine by a full scan of the raw
// table: every stored tweet is decoded and tested. It is the reference the
// tests hold the index answers to, and what the benchmark times them
// against (the thesis's "scan" column).
type Scanner struct{ R Reader }

// each calls fn for every tweet of the raw table in f's range (rounded to
// minutes, zero bounds open) and language.
func (sc Scanner) each(ctx context.Context, f Filter, fn func(*schemas.Tweet) error) error {
	from, to := int64(-1<<62), int64(1<<62)
	if !f.From.IsZero() {
		from = floorMinute(f.From.Unix())
	}
	if !f.To.IsZero() {
		to = -floorMinute(-f.To.Unix())
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

// Series counts the tweets per step.
func (sc Scanner) Series(ctx context.Context, f Filter, step time.Duration) ([]Point, error) {
	counts := map[int64]int64{}
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		counts[time.Unix(t.CreatedAt, 0).UTC().Truncate(step).Unix()]++
		return nil
	})
	out := make([]Point, 0, len(counts))
	for at, n := range counts {
		out = append(out, Point{Start: time.Unix(at, 0).UTC(), Count: n})
	}
	slices.SortFunc(out, func(a, b Point) int { return a.Start.Compare(b.Start) })
	return out, err
}

// hasTerm reports whether t holds term in field, as the indexer tokenizes.
func hasTerm(t *schemas.Tweet, term, field string, scratch *[]transforms.Term) bool {
	if field == transforms.FieldUser {
		*scratch = transforms.UserTerms((*scratch)[:0], t.UserName, t.ScreenName)
	} else {
		*scratch = transforms.Tokenize((*scratch)[:0], t.Text)
	}
	for _, x := range *scratch {
		if x.Term == term {
			return true
		}
	}
	return false
}

// CountTerm counts the tweets holding term in field.
func (sc Scanner) CountTerm(ctx context.Context, f Filter, term, field string) (int64, error) {
	keys, err := sc.Terms(ctx, f, []string{term}, And, field)
	return int64(len(keys)), err
}

// Terms returns the row keys, in order, of the tweets holding every term
// (And) or any (Or) in field.
func (sc Scanner) Terms(ctx context.Context, f Filter, terms []string, op Op, field string) ([]schemas.RowKey, error) {
	var scratch []transforms.Term
	var keys []schemas.RowKey
	err := sc.each(ctx, f, func(t *schemas.Tweet) error {
		n := 0
		for _, term := range terms {
			if hasTerm(t, normalizeTerm(term), field, &scratch) {
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
		if !t.HasPoint || (box != nil && !box.Contains(t.Lat, t.Lon)) {
			return nil
		}
		hits = append(hits, GeoHit{Key: t.RowKey, Lat: float32(t.Lat), Lon: float32(t.Lon)})
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
func compareKeys(a, b schemas.RowKey) int { return bytes.Compare(a[:], b[:]) }
