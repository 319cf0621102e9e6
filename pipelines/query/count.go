package query

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// Count answers "how many tweets" (question 1): the frequency table's
// counts of the whole minutes of the range (and language), plus the raw
// rows of the partial minutes at its edges, so that the answer is exact to
// the second.
func (e *Engine) Count(ctx context.Context, f Filter) (int64, error) {
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return 0, err
	}
	var n int64
	err = e.counts(ctx, s, time.Minute, false, func(_ int64, _ string, c int64) { n += c })
	return n, err
}

// Point is one step of a time series: the tweets created in [Start,
// Start+step), of language Lang when the series is split by language.
type Point struct {
	Start time.Time
	Lang  string
	Count int64
}

// Series answers "how many tweets per minute, hour or day" (question 3):
// SeriesBy without the split by language.
func (e *Engine) Series(ctx context.Context, f Filter, step time.Duration) ([]Point, error) {
	return e.SeriesBy(ctx, f, step, false)
}

// SeriesBy answers "how many tweets per minute, hour or day" (question 3)
// from the frequency table (and the raw rows of partial minutes at the
// range's edges): a point per step from the step holding the range's
// start to the one holding its end, in time order, steps without tweets
// included with a count of 0. With byLang, a point per step and language,
// for every language the range holds (in tag order within a step).
func (e *Engine) SeriesBy(ctx context.Context, f Filter, step time.Duration, byLang bool) ([]Point, error) {
	if step < time.Minute || step%time.Minute != 0 {
		return nil, fmt.Errorf("query: a series step of %s is not whole minutes (the frequency table's grain)", step)
	}
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return nil, err
	}
	c := newSeriesCounts()
	err = e.counts(ctx, s, step, byLang, c.add)
	return c.points(s.from, s.to, step, byLang), err
}

// seriesCounts gathers counts per step and language.
type seriesCounts struct {
	n     map[seriesKey]int64
	langs map[string]bool
}

type seriesKey struct {
	at   int64
	lang string
}

func newSeriesCounts() *seriesCounts {
	return &seriesCounts{n: map[seriesKey]int64{}, langs: map[string]bool{}}
}

func (c *seriesCounts) add(at int64, lang string, n int64) {
	c.n[seriesKey{at, lang}] += n
	c.langs[lang] = true
}

// points returns the series of [from, to), zero-filled.
func (c *seriesCounts) points(from, to int64, step time.Duration, byLang bool) []Point {
	langs := []string{""}
	if byLang {
		langs = make([]string, 0, len(c.langs))
		for l := range c.langs {
			langs = append(langs, l)
		}
		slices.Sort(langs)
	}
	var out []Point
	sec := int64(step / time.Second)
	for at := from - floorMod(from, sec); at < to; at += sec {
		for _, l := range langs {
			out = append(out, Point{Start: time.Unix(at, 0).UTC(), Lang: l, Count: c.n[seriesKey{at, l}]})
		}
	}
	return out
}

// counts calls fn with the tweets of s per step (the step's start in Unix
// seconds) and, with byLang, per language: several calls may name the
// same step and language. Whole minutes come from the frequency table,
// the seconds of partial minutes at the edges from the raw rows.
func (e *Engine) counts(ctx context.Context, s span, step time.Duration, byLang bool, fn func(at int64, lang string, n int64)) error {
	sec := int64(step / time.Second)
	stepOf := func(t int64) int64 { return t - floorMod(t, sec) }
	a, b := ceilMinute(s.from), floorMinute(s.to) // the whole minutes
	raw := func(from, to int64) error {
		if from >= to {
			return nil
		}
		var d decoder
		return e.R.Scan(ctx, schemas.TableRaw, rowKeyAt(from), rowKeyAt(to), func(key, value []byte) error {
			lang := ""
			if s.lang != "" || byLang {
				t, err := d.decode(key, value)
				if err != nil {
					return err
				}
				if s.lang != "" && t.Lang != s.lang {
					return nil
				}
				if byLang {
					lang = t.Lang
				}
			}
			fn(stepOf(rowKeyTime(key)), lang, 1)
			return nil
		})
	}
	if a >= b { // within one minute, or across one minute boundary with no whole minute
		return raw(s.from, s.to)
	}
	if err := raw(s.from, a); err != nil {
		return err
	}
	// A minute's cells (one per language) come together: its time is
	// parsed once (parsing every cell's was most of a count's time).
	var minute string
	var at int64
	err := e.R.Scan(ctx, schemas.TableFrequency, []byte(schemas.Minute(a)), []byte(schemas.Minute(b)), func(key, value []byte) error {
		row, err := schemas.DecodeFrequency(key, value)
		if err != nil {
			return err
		}
		if s.lang != "" && row.Lang != s.lang {
			return nil
		}
		if row.Minute != minute {
			m, err := time.Parse(schemas.MinuteLayout, row.Minute)
			if err != nil {
				return fmt.Errorf("frequency row %q: %w", key, err)
			}
			minute, at = row.Minute, stepOf(m.Unix())
		}
		lang := ""
		if byLang {
			lang = row.Lang
		}
		fn(at, lang, row.Count)
		return nil
	})
	if err != nil {
		return err
	}
	return raw(b, s.to)
}

// CountTerm answers "how many tweets contain a term" (question 4) from the
// term index: the row keys of the tweets holding every term the query term
// tokenizes to (transforms.QueryTerms) in field (transforms.FieldText or
// FieldUser) in the range. With a language, each row's tweet is read to
// learn its language.
func (e *Engine) CountTerm(ctx context.Context, f Filter, term, field string) (int64, error) {
	return e.CountTerms(ctx, f, []string{term}, And, field)
}

// CountGeo answers "how many geotagged tweets" (question 2), in box if it
// is not nil, from the geotemporal index. A row key recorded as a
// collision (collide.go) is read, and its tweets counted as Geo keeps
// them.
func (e *Engine) CountGeo(ctx context.Context, f Filter, box *Box) (int64, error) {
	coll, err := e.collided(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	err = e.geoHits(ctx, f, box, func(hits []GeoHit) error {
		var read []schemas.RowKey
		points := map[schemas.RowKey][]GeoHit{}
		for _, h := range hits {
			if !coll[h.Key] {
				n++
				continue
			}
			if len(points[h.Key]) == 0 {
				read = append(read, h.Key) // hits come in row key order
			}
			points[h.Key] = append(points[h.Key], h)
		}
		c, err := e.countAnswering(ctx, read, geoMatcher(points), nil, f.Lang)
		n += c
		return err
	})
	return n, err
}
