package maintain

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Term counts per day (schemas.TermDayRow) follow the stored tweets as the
// frequency table's counts do, a day at a time. A run's term index step
// marks the days of the tweets it stores (transforms.TermDayMarkers), the
// minutes marked for a recount (a stored tweet removed, a version
// replaced, a dead stream's minutes) mark their days too (markDays),
// and once the pipeline is done each marked day is counted again, whole,
// and its mark removed (recountTermDays): its counts are those of the
// tweets stored in it, whichever runs stored them, so re-running any
// input rewrites the same cells, two runs over parts of one day both
// count, and a forgotten tweet's terms drop. A run that dies leaves its
// marks to the next run (or forget).
//
// The days are counted one of two ways, with the same counts. When the
// marked days hold a large part of an embedded store's tweets (a fresh
// load, more tweets of the days it holds), from the term index, all of
// them in one pass over it (termdayindex.go): its cost grows with the
// store, about 3.5 µs of CPU a stored tweet. Otherwise (a few days of a
// large store, a Cassandra keyspace, a store without the authors table),
// a day at a time from its raw rows, each tweet decoded and tokenized
// again (recountTermDay), several days at once: about 20 µs a tweet of
// the marked days, a day on one core, its counts one map in memory.

// recountTermDays recounts the term counts of the days marked in s
// (schemas.TermDayMarkPrefix), from the term index or from the raw
// rows (see above), and removes their marks. It returns the days
// recounted and the cells written (new or changed counts).
func recountTermDays(ctx context.Context, s readWriter) (int, int, error) {
	days, err := markedDays(ctx, s, "term days", schemas.TermDayMarkPrefix, schemas.ParseTermDayMark)
	if err != nil || len(days) == 0 {
		return 0, 0, err
	}
	if n, done, err := recountTermDaysFromIndex(ctx, s, days); err != nil || done {
		return len(days), n, err
	}
	return recountDaysEach(ctx, s, days, recountTermDay)
}

// recountTermDay writes the term counts of day d from its stored tweets:
// the counts that changed, the deletes of those that are gone, and the
// removal of its mark. It returns the counts written.
func recountTermDay(ctx context.Context, s readWriter, d uint16) (int, error) {
	name := dayName(d)
	var c transforms.TermDayCounter
	var dec schemas.Decoder
	var out schemas.Decoded
	lo, hi := schemas.RowKeyStart(schemas.DayStart(d)), schemas.RowKeyStart(schemas.DayStart(d)+86400)
	err := s.Scan(ctx, schemas.TableRaw, lo[:], hi[:], func(_, value []byte) error {
		out.Reset()
		dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: value}, &out)
		if len(out.Tweets) == 1 {
			c.Add(&out.Tweets[0])
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("recount of the terms of %s: %w", name, err)
	}
	cells := c.Cells(make([]schemas.Cell, 0, c.Len()+1), d)
	want := make(map[string]int, len(cells))
	for i, cell := range cells {
		want[string(cell.Key)] = i
	}
	keep := make([]bool, len(cells))
	var deletes []schemas.Cell
	for _, field := range schemas.TermDayFields() { // a day and field is a range on Cassandra
		err = sink.ScanPrefix(ctx, s, schemas.TableTermDays, schemas.TermDayPrefix(d, field), func(key, value []byte) error {
			i, ok := want[string(key)]
			switch {
			case !ok:
				deletes = append(deletes, schemas.Cell{Table: schemas.TableTermDays, Key: bytes.Clone(key), Delete: true})
			case bytes.Equal(cells[i].Value, value):
				keep[i] = true // stored as it is: not written again
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("recount of the terms of %s: %w", name, err)
		}
	}
	j := 0
	for i := range cells {
		if !keep[i] {
			cells[j] = cells[i]
			j++
		}
	}
	cells = append(append(cells[:j], deletes...), schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.TermDayMark(d)), Delete: true})
	if err := s.Write(ctx, cells); err != nil {
		return 0, fmt.Errorf("recount of the terms of %s: %w", name, err)
	}
	return j, nil
}

func dayName(d uint16) string {
	return time.Unix(schemas.DayStart(d), 0).UTC().Format(time.DateOnly)
}
