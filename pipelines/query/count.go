package query

import (
	"context"
	"fmt"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// Count answers "how many tweets" (question 1) from the frequency table:
// the sum of the minute counts of the range (and language).
func (e *Engine) Count(ctx context.Context, f Filter) (int64, error) {
	series, err := e.Series(ctx, f, time.Minute)
	var n int64
	for _, p := range series {
		n += p.Count
	}
	return n, err
}

// Point is one step of a time series.
type Point struct {
	Start time.Time
	Count int64
}

// Series answers "how many tweets per minute, hour or day" (question 3)
// from the frequency table: the counts of the range summed per step, in
// time order; steps without tweets are left out.
func (e *Engine) Series(ctx context.Context, f Filter, step time.Duration) ([]Point, error) {
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return nil, err
	}
	if step < time.Minute {
		return nil, fmt.Errorf("query: a series step of %s is finer than the frequency table's minute", step)
	}
	start := []byte(schemas.Minute(s.from))
	end := []byte(schemas.Minute(s.to))
	var out []Point
	err = e.R.Scan(ctx, schemas.TableFrequency, start, end, func(key, value []byte) error {
		row, err := schemas.DecodeFrequency(key, value)
		if err != nil {
			return err
		}
		if s.lang != "" && row.Lang != s.lang {
			return nil
		}
		m, err := time.Parse(schemas.MinuteLayout, row.Minute)
		if err != nil {
			return err
		}
		at := m.Truncate(step)
		if n := len(out); n > 0 && out[n-1].Start.Equal(at) {
			out[n-1].Count += row.Count
		} else {
			out = append(out, Point{Start: at, Count: row.Count})
		}
		return nil
	})
	return out, err
}

// CountTerm answers "how many tweets contain a term" (question 4) from the
// term index: the row keys of the term in field (transforms.FieldText or
// FieldUser) in the range. With a language, each row's tweet is read to
// learn its language.
func (e *Engine) CountTerm(ctx context.Context, f Filter, term, field string) (int64, error) {
	var n int64
	err := e.termKeys(ctx, f, normalizeTerm(term), field, func(_ schemas.RowKey) error {
		n++
		return nil
	})
	return n, err
}

// CountGeo answers "how many geotagged tweets" (question 2), in box if it
// is not nil, from the geotemporal index.
func (e *Engine) CountGeo(ctx context.Context, f Filter, box *Box) (int64, error) {
	var n int64
	err := e.geoHits(ctx, f, box, func(hits []GeoHit) error {
		n += int64(len(hits))
		return nil
	})
	return n, err
}
