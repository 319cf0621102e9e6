package query

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// GeoHit is a row of the geotemporal index that a box search kept.
type GeoHit struct {
	Key      schemas.RowKey
	Lat, Lon float32
	Kind     schemas.PointKind
}

// geoHits calls fn once per day read (geoDays) with the day's hits in box
// (every geotagged tweet if box is nil), in row key order.
//
// The box is covered with geohash ranges (Cover) under the engine's
// budget; each day is read as its 255 spread values times those ranges,
// Parallel reads at a time, and every row is filtered by its exact
// coordinates and time (and language, by reading the tweet).
func (e *Engine) geoHits(ctx context.Context, f Filter, box *Box, fn func([]GeoHit) error) error {
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return err
	}
	if s.lang != "" {
		if s.collided, err = e.collided(ctx); err != nil {
			return err
		}
	}
	ranges := []HashRange{{Start: "", End: ""}}
	if box != nil {
		budget := e.Budget
		if rb, ok := e.R.(interface{ RangeBudget() int }); ok && budget <= 0 {
			budget = rb.RangeBudget()
		}
		if budget <= 0 {
			budget = DefaultBudget
		}
		ranges = Cover(*box, budget)
	}
	workers := e.Parallel
	if pr, ok := e.R.(interface{ ParallelReads() int }); ok && workers <= 0 {
		workers = pr.ParallelReads()
	}
	if workers <= 0 {
		workers = 8
	}
	if st, ok := e.R.(*storeio.Store); ok {
		return e.geoHitsStore(ctx, st, s, ranges, box, workers, fn)
	}
	days, err := e.geoDays(ctx, s)
	if err != nil {
		return err
	}
	for _, day := range days {
		perSpread := make([][]GeoHit, schemas.SpreadCount)
		jobs := make(chan int)
		errs := make(chan error, workers)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lang := e.langFilter(s.lang, s.collided)
				for sp := range jobs {
					hits, err := e.readSpread(ctx, uint8(sp), day, ranges, box, s, lang)
					if err != nil {
						errs <- err
						for range jobs { // drain
						}
						return
					}
					perSpread[sp] = hits
				}
			}()
		}
	feed:
		for sp := 0; sp < schemas.SpreadCount; sp++ {
			select {
			case jobs <- sp:
			case err := <-errs:
				errs <- err
				break feed
			}
		}
		close(jobs)
		wg.Wait()
		select {
		case err := <-errs:
			return err
		default:
		}
		var hits []GeoHit
		for _, h := range perSpread {
			hits = append(hits, h...)
		}
		slices.SortFunc(hits, func(a, b GeoHit) int { return bytes.Compare(a.Key[:], b.Key[:]) })
		if err := fn(hits); err != nil {
			return err
		}
	}
	return nil
}

// geoDays returns the days of s to read the geo table of: those the
// reader says may hold geo rows (cassandraio.Reader.GeoDays: the day
// markers), or every day of s.
func (e *Engine) geoDays(ctx context.Context, s span) ([]uint16, error) {
	from, to := int64(schemas.Day(s.from)), (s.to-1)/86400
	if to > math.MaxUint16 {
		to = math.MaxUint16
	}
	if gd, ok := e.R.(interface {
		GeoDays(ctx context.Context, from, to uint16) ([]uint16, bool, error)
	}); ok && from <= to {
		days, ok, err := gd.GeoDays(ctx, uint16(from), uint16(to))
		if err != nil || ok {
			return days, err
		}
	}
	var days []uint16
	for d := from; d <= to; d++ {
		days = append(days, uint16(d))
	}
	return days, nil
}

// readSpread reads the ranges of one spread value and day.
func (e *Engine) readSpread(ctx context.Context, spread uint8, day uint16, ranges []HashRange, box *Box, s span, lang func(context.Context, schemas.RowKey) (bool, error)) ([]GeoHit, error) {
	prefix := []byte{spread, 0, 0}
	binary.BigEndian.PutUint16(prefix[1:], day)
	var hits []GeoHit
	for _, r := range ranges {
		start := append(bytes.Clone(prefix), r.Start...)
		var end []byte
		if r.End == "" {
			end = append(bytes.Clone(prefix), 0xff)
		} else {
			end = append(bytes.Clone(prefix), r.End...)
		}
		err := e.R.Scan(ctx, schemas.TableGeo, start, end, func(key, value []byte) error {
			row, err := schemas.DecodeGeo(key, value)
			if err != nil {
				return err
			}
			if ok, err := keepGeo(ctx, row, box, s, lang); err != nil || !ok {
				return err
			}
			hits = append(hits, GeoHit{Key: row.Key, Lat: row.Lat, Lon: row.Lon, Kind: row.Kind})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// Geo answers "which geotagged tweets are in this box in this range"
// (question 5): the box search of CountGeo, then each tweet read from the
// raw table, in row key order.
func (e *Engine) Geo(ctx context.Context, f Filter, box *Box, page Page, emit func(Hit) error) error {
	// The language is checked on the tweet, which is read anyway.
	out := page.emitter(e, f.Lang, emit)
	f.Lang = ""
	err := e.geoHits(ctx, f, box, func(hits []GeoHit) error {
		out.point = make(map[schemas.RowKey][]GeoHit, len(hits))
		out.match = geoMatcher(out.point)
		for _, h := range hits {
			out.point[h.Key] = append(out.point[h.Key], h)
		}
		keys := make([]schemas.RowKey, len(hits))
		for i, h := range hits {
			keys[i] = h.Key
		}
		// Two tweets of one row key (a collision) may both have points
		// in the box: one row key, read once, each tweet kept if its
		// point is one of the hits'.
		return out.keys(ctx, slices.Compact(keys))
	})
	return out.end(err)
}

// geoMatcher returns whether a tweet of a row key holding more than one
// answers a box question: its point is that of one of the row key's geo
// rows the search kept (points).
func geoMatcher(points map[schemas.RowKey][]GeoHit) func(*schemas.Tweet) bool {
	return func(t *schemas.Tweet) bool {
		for _, p := range points[t.RowKey] {
			if t.HasPoint && float32(t.Lat) == p.Lat && float32(t.Lon) == p.Lon {
				return true
			}
		}
		return false
	}
}

// geoHitsStore is geoHits on the embedded store, where the geo table is
// one ordered key space: the spreads are read a block of consecutive ones
// at a time, each block through one cursor that moves to the next day
// holding rows of a spread (so days without geo rows cost nothing: a box
// over years of sparse data is a seek a spread plus the days that hold
// points), then to each geohash range of that day, then to the next
// spread. The blocks are read at once, a worker each; fn gets every hit of the
// range at once, in row key order.
func (e *Engine) geoHitsStore(ctx context.Context, st *storeio.Store, s span, ranges []HashRange, box *Box, workers int, fn func([]GeoHit) error) error {
	dayFrom, dayTo := int64(schemas.Day(s.from)), (s.to-1)/86400
	if dayTo > math.MaxUint16 {
		dayTo = math.MaxUint16
	}
	// A block a worker: each block is a cursor, and the workers (8 unless
	// Engine.Parallel says) outnumber the cores, so that one slow block
	// does not hold the rest up.
	size := max(1, schemas.SpreadCount/workers)
	blocks := (schemas.SpreadCount + size - 1) / size
	perBlock := make([][]GeoHit, blocks)
	errs := make([]error, blocks)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lang := e.langFilter(s.lang, s.collided)
			for b := range jobs {
				lo, hi := b*size, min((b+1)*size, schemas.SpreadCount)
				perBlock[b], errs[b] = e.readSpreadsStore(ctx, st, lo, hi, uint16(dayFrom), uint16(dayTo), ranges, box, s, lang)
			}
		}()
	}
	for b := 0; b < blocks && ctx.Err() == nil; b++ {
		jobs <- b
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var hits []GeoHit
	for _, h := range perBlock {
		hits = append(hits, h...)
	}
	slices.SortFunc(hits, func(a, b GeoHit) int { return compareKeys(a.Key, b.Key) })
	return fn(hits)
}

// readSpreadsStore reads the ranges of spreads [lo, hi) over days
// [dayFrom, dayTo], skipping the days without rows, through one cursor.
func (e *Engine) readSpreadsStore(ctx context.Context, st *storeio.Store, lo, hi int, dayFrom, dayTo uint16, ranges []HashRange, box *Box, s span, lang func(context.Context, schemas.RowKey) (bool, error)) ([]GeoHit, error) {
	var end []byte // the table's end
	if hi < 256 {
		end = []byte{byte(hi)}
	}
	cur, err := st.NewCursor(ctx, schemas.TableGeo, []byte{byte(lo), byte(dayFrom >> 8), byte(dayFrom)}, end)
	if err != nil {
		return nil, err
	}
	w := spreadWalk{cur: cur, dayFrom: dayFrom, dayTo: dayTo, ranges: ranges, box: box, s: s, lang: lang}
	for sp := lo; sp < hi && !w.done; sp++ {
		if err = w.spread(ctx, uint8(sp)); err != nil {
			break
		}
	}
	return w.hits, errors.Join(err, cur.Close())
}

// spreadWalk is readSpreadsStore's walk of its cursor, a spread at a time.
type spreadWalk struct {
	cur             *storeio.Cursor
	dayFrom, dayTo  uint16
	ranges          []HashRange
	box             *Box
	s               span
	lang            func(context.Context, schemas.RowKey) (bool, error)
	hits            []GeoHit
	positioned      bool // the cursor is at a cell
	done            bool // the cursor is past its last cell
	key, start, end []byte
}

// spread reads the rows of one spread: the ranges of each of its days in
// [dayFrom, dayTo] that holds rows.
func (w *spreadWalk) spread(ctx context.Context, spread uint8) error {
	for day := uint32(w.dayFrom); day <= uint32(w.dayTo); day++ {
		w.key = append(w.key[:0], spread, byte(day>>8), byte(day))
		if !w.seek(w.key) {
			return nil // no rows after
		}
		k := w.cur.Key()
		if k[0] != spread {
			return nil // no rows of this spread on this day or after
		}
		if day = uint32(binary.BigEndian.Uint16(k[1:3])); day > uint32(w.dayTo) {
			return nil // the next day that has rows is past the range
		}
		w.key = append(w.key[:0], k[:3]...) // the day's prefix (k changes as the cursor moves)
		p := w.key
		for _, r := range w.ranges {
			w.start = append(append(w.start[:0], p...), r.Start...)
			if r.End == "" {
				w.end = append(append(w.end[:0], p...), 0xff)
			} else {
				w.end = append(append(w.end[:0], p...), r.End...)
			}
			if !w.seek(w.start) {
				return nil
			}
			for bytes.Compare(w.cur.Key(), w.end) < 0 {
				v, err := w.cur.Value()
				if err != nil {
					return err
				}
				row, err := schemas.DecodeGeo(w.cur.Key(), v)
				if err != nil {
					return err
				}
				if ok, err := keepGeo(ctx, row, w.box, w.s, w.lang); err != nil {
					return err
				} else if ok {
					w.hits = append(w.hits, GeoHit{Key: row.Key, Lat: row.Lat, Lon: row.Lon, Kind: row.Kind})
				}
				if !w.cur.Next() {
					w.done = true
					return nil
				}
			}
		}
	}
	return nil
}

// seek moves the cursor to the first cell at or after key (seekNear once
// it is at a cell), and reports whether there is one.
func (w *spreadWalk) seek(key []byte) bool {
	ok := false
	if w.positioned {
		ok = seekNear(w.cur, key)
	} else {
		ok, w.positioned = w.cur.SeekGE(key), true
	}
	w.done = !ok
	return ok
}

// nearSteps is how many cells seekNear steps over before it seeks.
const nearSteps = 16

// seekNear moves cur, at a cell, to the first cell at or after key (if it
// is not at one already), and reports whether there is one: by Next when
// that is a few cells on, as it often is in a spread's day of geo rows,
// by SeekGE otherwise. (A seek walks down every level of the store; a
// seek right after a seek would step on by itself, but not one after
// Next.)
func seekNear(cur *storeio.Cursor, key []byte) bool {
	if bytes.Compare(cur.Key(), key) >= 0 {
		return true
	}
	for range nearSteps {
		if !cur.Next() {
			return false
		}
		if bytes.Compare(cur.Key(), key) >= 0 {
			return true
		}
	}
	return cur.SeekGE(key)
}

// keepGeo reports whether a geo row answers the question: in the range,
// of a kind the question counts, in the box and of the language.
func keepGeo(ctx context.Context, row schemas.GeoRow, box *Box, s span, lang func(context.Context, schemas.RowKey) (bool, error)) (bool, error) {
	if t := rowKeyTime(row.Key[:]); t < s.from || t >= s.to {
		return false, nil
	}
	if row.Kind != schemas.PointExact && !s.centres {
		return false, nil
	}
	if box != nil && !box.Contains(float64(row.Lat), float64(row.Lon)) {
		return false, nil
	}
	return lang(ctx, row.Key)
}
