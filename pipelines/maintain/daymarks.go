package maintain

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// readWriter is a sink to read and write: a *sink.Sink, or the reader
// and writer of a repair (repairSink).
type readWriter interface {
	sink.Reader
	Write(ctx context.Context, cells []schemas.Cell) error
}

// repairSink is a reader written through write (Check's repairs).
type repairSink struct {
	sink.Reader
	write func(context.Context, []schemas.Cell) error
}

func (r repairSink) Write(ctx context.Context, cells []schemas.Cell) error {
	return r.write(ctx, cells)
}

// storeOf returns the embedded store s reads, if it reads one.
func storeOf(s sink.Reader) (*storeio.Store, bool) {
	switch v := s.(type) {
	case *sink.Sink:
		return storeOf(v.Reader)
	case repairSink:
		return storeOf(v.Reader)
	}
	st, ok := s.(*storeio.Store)
	return st, ok
}

// markDays marks the days of minutes (YYYYMMDDhhmm) for a recount of a
// per-day table, the mark of a day being mark(day): the per-day term
// counts (schemas.TermDayMark) or edge weights (schemas.EdgeDayMark), in
// a sink that keeps them (the metadata row param). It is written before
// the minutes' own marks are removed, so a run that dies in between
// leaves the days marked.
func markDays(ctx context.Context, s readWriter, minutes []string, param string, mark func(uint16) string) error {
	if len(minutes) == 0 {
		return nil
	}
	if _, kept, err := s.Lookup(ctx, schemas.TableMeta, []byte(param)); err != nil || !kept {
		if err != nil {
			return fmt.Errorf("reading %s: %w", param, err)
		}
		return nil
	}
	var cells []schemas.Cell
	var last string
	for _, m := range minutes {
		at, err := time.ParseInLocation(schemas.MinuteLayout, m, time.UTC)
		if err != nil || !schemas.ValidDay(at.Unix()) {
			continue
		}
		name := mark(schemas.Day(at.Unix()))
		if name != last {
			cells = append(cells, schemas.MetaRow{Name: name}.Cell())
			last = name
		}
	}
	if len(cells) == 0 {
		return nil
	}
	if err := s.Write(ctx, cells); err != nil {
		return fmt.Errorf("marking the days of the minutes to recount: %w", err)
	}
	return nil
}

// recountMarkedDays recounts the days marked in s by metadata rows named
// prefix and a day (parse reads the day of a name), several days at once
// (recount writes one day's counts and removes its mark), and returns the
// days recounted and the cells written. what names the table in errors.
func recountMarkedDays(ctx context.Context, s readWriter, what, prefix string, parse func(string) (uint16, bool), recount func(context.Context, readWriter, uint16) (int, error)) (int, int, error) {
	days, err := markedDays(ctx, s, what, prefix, parse)
	if err != nil {
		return 0, 0, err
	}
	return recountDaysEach(ctx, s, days, recount)
}

// markedDays returns the days marked in s by metadata rows named prefix
// and a day (parse reads the day of a name), in order. what names the
// table in errors.
func markedDays(ctx context.Context, s readWriter, what, prefix string, parse func(string) (uint16, bool)) ([]uint16, error) {
	var days []uint16
	err := sink.ScanPrefix(ctx, s, schemas.TableMeta, []byte(prefix), func(key, _ []byte) error {
		if d, ok := parse(string(key)); ok {
			days = append(days, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recount of %s: reading the marks: %w", what, err)
	}
	slices.Sort(days)
	return slices.Compact(days), nil
}

// recountDaysEach recounts days one at a time with recount, several at
// once, and returns the days recounted and the cells written.
func recountDaysEach(ctx context.Context, s readWriter, days []uint16, recount func(context.Context, readWriter, uint16) (int, error)) (int, int, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	var written atomic.Int64
	for _, d := range days {
		g.Go(func() error {
			n, err := recount(gctx, s, d)
			written.Add(int64(n))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return 0, 0, err
	}
	return len(days), int(written.Load()), nil
}
