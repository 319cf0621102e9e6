package maintain

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// Edge weights per day (schemas.EdgeDayRow) follow the edge table as the
// per-day term counts follow the stored tweets, a day at a time. A run's
// edge step marks the days of the edge cells it writes
// (transforms.EdgeDayMarkers), the minutes marked for a recount (a stored
// tweet removed, a version replaced, a dead stream's minutes) mark their
// days too (markDays), and once the pipeline is done each marked day is
// counted again from the edge table, every kind, whole, and its mark
// removed (recountEdgeDays): its weights are the number of edge cells of
// each edge, whichever runs wrote them, so re-running any input rewrites
// the same cells, two runs over parts of one day both count, and a
// forgotten tweet's edges drop. A run that dies leaves its marks to the
// next run (or forget).
//
// The cost is a read of every edge cell of each marked day (a kind and day
// is one key range of the edge table, its cells small keys with no value),
// not a decode of the day's tweets: it grows with the days a run touches
// and their edges, not with the store.

// recountEdgeDays recounts the edge weights of the days marked in s
// (schemas.EdgeDayMarkPrefix), several days at once, and removes their
// marks. It returns the days recounted and the cells written (new or
// changed weights).
func recountEdgeDays(ctx context.Context, s readWriter) (int, int, error) {
	return recountMarkedDays(ctx, s, "edge days", schemas.EdgeDayMarkPrefix, schemas.ParseEdgeDayMark, recountEdgeDay)
}

// recountEdgeDay writes the edge weights of day d, every kind, from its
// edge cells: the weights that changed and the deletes of those that are
// gone, a kind at a time (memory: one kind's distinct edges of the day),
// then the removal of its mark. It returns the weights written.
func recountEdgeDay(ctx context.Context, s readWriter, d uint16) (int, error) {
	written := 0
	for _, t := range schemas.EdgeTypes() {
		counts, err := countEdgeDay(ctx, s, t, d)
		if err != nil {
			return 0, fmt.Errorf("recount of the edges of %s: %w", dayName(d), err)
		}
		cells, err := edgeDayChanges(ctx, s, t, d, counts, nil)
		if err != nil {
			return 0, fmt.Errorf("recount of the edges of %s: %w", dayName(d), err)
		}
		if len(cells) == 0 {
			continue
		}
		for _, c := range cells {
			if !c.Delete {
				written++
			}
		}
		if err := s.Write(ctx, cells); err != nil {
			return 0, fmt.Errorf("recount of the %s edges of %s: %w", t.Name(), dayName(d), err)
		}
	}
	mark := schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.EdgeDayMark(d)), Delete: true}
	if err := s.Write(ctx, []schemas.Cell{mark}); err != nil {
		return 0, fmt.Errorf("recount of the edges of %s: %w", dayName(d), err)
	}
	return written, nil
}

// edgeDayRange returns the key range of the edges of kind t on day d, in
// the edge table and in the edge weights alike: every key of that kind
// and day, and no other (no name begins with 0xff, which UTF-8 never
// holds).
func edgeDayRange(t schemas.EdgeType, d uint16) (start, end []byte) {
	start = schemas.EdgePrefix(t, d)
	return start, append(slices.Clip(start), 0xff)
}

// countEdgeDay returns the weight of each edge of kind t on day d, from
// the edge cells, keyed by the edge's EdgeDays key.
func countEdgeDay(ctx context.Context, r sink.Reader, t schemas.EdgeType, d uint16) (map[string]int64, error) {
	counts := map[string]int64{}
	start, end := edgeDayRange(t, d)
	err := r.Scan(ctx, schemas.TableEdges, start, end, func(key, _ []byte) error {
		k, ok := schemas.EdgeDayKeyOf(key)
		if !ok {
			return fmt.Errorf("edges row %q malformed", key)
		}
		counts[string(k)]++
		return nil
	})
	return counts, err
}

// edgeDayChanges appends to dst the cells that make the edge weights of
// kind t on day d those of counts (countEdgeDay): the weights new or
// changed, and the deletes of the weights of edges no longer there. The
// weights stored as they are, are not written again.
func edgeDayChanges(ctx context.Context, r sink.Reader, t schemas.EdgeType, d uint16, counts map[string]int64, dst []schemas.Cell) ([]schemas.Cell, error) {
	stored := map[string]bool{}
	start, end := edgeDayRange(t, d)
	var val []byte
	err := r.Scan(ctx, schemas.TableEdgeDays, start, end, func(key, value []byte) error {
		n, ok := counts[string(key)]
		if !ok {
			dst = append(dst, schemas.Cell{Table: schemas.TableEdgeDays, Key: bytes.Clone(key), Delete: true})
			return nil
		}
		if val = strconv.AppendInt(val[:0], n, 10); bytes.Equal(val, value) {
			stored[string(key)] = true
		}
		return nil
	})
	if err != nil {
		return dst, err
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		if !stored[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = append(dst, schemas.Cell{Table: schemas.TableEdgeDays, Key: []byte(k), Value: strconv.AppendInt(nil, counts[k], 10)})
	}
	return dst, nil
}
