package maintain

import (
	"context"
	"fmt"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// markDays marks the days of minutes (YYYYMMDDhhmm) for a recount of a
// per-day table, the mark of a day being mark(day): the per-day term
// counts (schemas.TermDayMark) or edge weights (schemas.EdgeDayMark), in
// a sink that keeps them (the metadata row param). It is written before
// the minutes' own marks are removed, so a run that dies in between
// leaves the days marked.
func markDays(ctx context.Context, s *sink.Sink, minutes []string, param string, mark func(uint16) string) error {
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
