package cassandraio

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// The day markers of the geotemporal index (schemas.GeoDayMarker): a box
// question on Cassandra reads the 255 spread partitions of the days that
// have one, and skips the others.

// geoDayReads is how many day markers GeoDays reads at a time; over
// geoDayScan days it reads the whole metadata table instead.
const (
	geoDayReads = 32
	geoDayScan  = 2048
)

// GeoDays returns the days in [from, to] (days since 1970) that may hold
// geo rows, in order, from the day markers of the metadata table
// (schemas.GeoDayMarker): a box question reads the 255 spread partitions
// of these days only. ok is false when the keyspace does not promise a
// marker for every day with geo rows (no schemas.GeoDayMarkersParam: it
// was indexed before markers were written): then every day must be read.
func (r *Reader) GeoDays(ctx context.Context, from, to uint16) (days []uint16, ok bool, err error) {
	if _, ok, err := r.Get(ctx, schemas.TableMeta, []byte(schemas.GeoDayMarkersParam)); err != nil || !ok {
		return nil, false, err
	}
	if from > to {
		return nil, true, nil
	}
	if int(to)-int(from) >= geoDayScan {
		err := r.ScanAll(ctx, schemas.TableMeta, func(key, _ []byte) error {
			if d, ok := markedDay(key); ok && d >= from && d <= to {
				days = append(days, d)
			}
			return nil
		})
		slices.Sort(days)
		return days, true, err
	}
	marked := make([]bool, int(to)-int(from)+1)
	errs := make([]error, len(marked))
	sem := make(chan struct{}, geoDayReads)
	var wg sync.WaitGroup
	for i := range marked {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			_, marked[i], errs[i] = r.Get(ctx, schemas.TableMeta, []byte(schemas.GeoDayName(from+uint16(i))))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, false, err
	}
	for i, m := range marked {
		if m {
			days = append(days, from+uint16(i))
		}
	}
	return days, true, nil
}

// markedDay returns the day of a marker's metadata name.
func markedDay(name []byte) (uint16, bool) {
	s, ok := bytes.CutPrefix(name, []byte(schemas.GeoDayPrefix))
	if !ok {
		return 0, false
	}
	t, err := time.Parse(time.DateOnly, string(s))
	if err != nil || !schemas.ValidDay(t.Unix()) {
		return 0, false
	}
	return schemas.Day(t.Unix()), true
}
