package maintain

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// Counts follow deletions. A frequency cell is an absolute count, which a
// run writes from the tweets it read; when a compliance message deletes a
// stored tweet (or a version is replaced), the count of its minute may
// include a tweet the raw table no longer holds, whichever run counted
// it. The sink marks such minutes in the metadata table
// (schemas.RecountPrefix), and Run recounts each marked minute from the
// raw table once the pipeline is done, then removes the mark. A run that
// dies leaves its marks for the next run to recount.
//
// A minute's tweets per language are read from the authors table
// (schemas.AuthorRow: one small cell per stored tweet, keyed as its raw
// cell, holding its language) when the sink has one for every stored
// tweet (the metadata row schemas.AuthorsParam), as questions about users
// read it; in a sink indexed before that table existed, from the raw rows,
// decoding each tweet's JSON. The counts are the same: the authors cell
// holds the language the decoded tweet has (transforms.AuthorCell), and it
// is written and deleted with the raw cell. Minutes to rebuild read the
// raw rows whatever the sink, since they derive the other tables' cells
// from them.

// RecountMarked recounts the frequency cells of the minutes marked in the
// metadata table of the sink s from its stored tweets (the authors table,
// or the raw table: see above), and removes the marks.
// It returns how many minutes it recounted.
func RecountMarked(ctx context.Context, s *sink.Sink) (int, error) {
	r, err := RecountAll(ctx, s)
	return r.Minutes, err
}

// Recount says what RecountAll did.
type Recount struct {
	// Minutes is how many minutes' frequency counts were recounted.
	Minutes int
	// Days is how many days' term counts were recounted, and TermDayRows
	// how many of their cells were written (new or changed).
	Days, TermDayRows int
	// EdgeDays is how many days' edge weights were recounted, and
	// EdgeDayRows how many of their cells were written (new or changed).
	EdgeDays, EdgeDayRows int
}

// RecountAll is RecountMarked, and says how many days' term counts and
// edge weights it recounted and how many of their cells it wrote
// (termdays.go, edgedays.go).
func RecountAll(ctx context.Context, s *sink.Sink) (Recount, error) {
	var rec Recount
	var minutes []string
	rebuild := map[string]bool{}
	err := sink.ScanPrefix(ctx, s, schemas.TableMeta, []byte(schemas.RecountPrefix), func(key, _ []byte) error {
		minutes = append(minutes, string(key[len(schemas.RecountPrefix):]))
		return nil
	})
	if err == nil {
		err = sink.ScanPrefix(ctx, s, schemas.TableMeta, []byte(schemas.RebuildPrefix), func(key, _ []byte) error {
			m := string(key[len(schemas.RebuildPrefix):])
			minutes = append(minutes, m)
			rebuild[m] = true
			return nil
		})
	}
	if err != nil {
		return rec, fmt.Errorf("recount: reading the marks: %w", err)
	}
	slices.Sort(minutes)
	minutes = slices.Compact(minutes) // a minute marked both ways
	// Their days' term counts and edge weights (termdays.go, edgedays.go).
	if err := markDays(ctx, s, minutes, schemas.TermDaysParam, schemas.TermDayMark); err != nil {
		return rec, err
	}
	if err := markDays(ctx, s, minutes, schemas.EdgeDaysParam, schemas.EdgeDayMark); err != nil {
		return rec, err
	}
	if len(minutes) == 0 {
		return recountDays(ctx, s, rec)
	}
	_, authors, err := s.Lookup(ctx, schemas.TableMeta, []byte(schemas.AuthorsParam))
	if err != nil {
		return rec, fmt.Errorf("recount: reading %s: %w", schemas.AuthorsParam, err)
	}
	var dec schemas.Decoder
	var out schemas.Decoded
	for _, m := range minutes {
		at, err := time.ParseInLocation(schemas.MinuteLayout, m, time.UTC)
		if err != nil {
			continue // not a mark this version writes
		}
		counts := map[string]int64{}
		var cells []schemas.Cell
		lo, hi := schemas.RowKeyStart(at.Unix()), schemas.RowKeyStart(at.Unix()+60)
		if authors && !rebuild[m] {
			err = s.Scan(ctx, schemas.TableAuthors, lo[:], hi[:], func(key, value []byte) error {
				lang, _, ok := schemas.AuthorValue(value)
				if !ok {
					return fmt.Errorf("authors row %x: value %q malformed", key, value)
				}
				counts[string(lang)]++
				return nil
			})
		} else {
			err = s.Scan(ctx, schemas.TableRaw, lo[:], hi[:], func(key, value []byte) error {
				out.Reset()
				dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: value}, &out)
				if len(out.Tweets) != 1 {
					return nil
				}
				t := &out.Tweets[0]
				counts[t.Lang]++
				if rebuild[m] {
					// The term, geo and authors cells of the stored tweet, as
					// the run that died may not have written them.
					copy(t.RowKey[:], key)
					cells = transforms.DeriveTweet(cells, t)
					cells = append(cells, transforms.AuthorCell(t))
				}
				return nil
			})
		}
		if err != nil {
			return rec, fmt.Errorf("recount %s: %w", m, err)
		}
		err = s.Scan(ctx, schemas.TableFrequency, []byte(m), []byte(schemas.Minute(at.Unix()+60)), func(key, value []byte) error {
			r, err := schemas.DecodeFrequency(key, value)
			if err == nil && counts[r.Lang] == 0 {
				cells = append(cells, schemas.Cell{Table: schemas.TableFrequency, Key: bytes.Clone(key), Delete: true})
			}
			return nil
		})
		if err != nil {
			return rec, fmt.Errorf("recount %s: %w", m, err)
		}
		for lang, n := range counts {
			cells = append(cells, schemas.FrequencyRow{Minute: m, Lang: lang, Count: n}.Cell())
		}
		cells = append(cells, schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.RecountPrefix + m), Delete: true})
		if rebuild[m] {
			cells = append(cells, schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.RebuildPrefix + m), Delete: true})
		}
		if err := s.Write(ctx, cells); err != nil {
			return rec, fmt.Errorf("recount %s: %w", m, err)
		}
	}
	rec.Minutes = len(minutes)
	return recountDays(ctx, s, rec)
}

// recountDays recounts the marked days of the per-day tables, term counts
// and edge weights, into rec.
func recountDays(ctx context.Context, s *sink.Sink, rec Recount) (Recount, error) {
	var err error
	if rec.Days, rec.TermDayRows, err = recountTermDays(ctx, s); err != nil {
		return rec, err
	}
	rec.EdgeDays, rec.EdgeDayRows, err = recountEdgeDays(ctx, s)
	return rec, err
}

// Counts in flight. A stream's counts live in window state until they are
// written (2 s after a minute's first tweet, then as they grow), and its
// Kafka offsets are committed once the runner holds a checkpoint's
// records, not once their counts are written: a stream killed in between
// loses counts whose tweets the raw table holds and that the next run,
// resuming from the committed offsets, never reads. So a stream marks the
// minute of every tweet it stores (schemas.CountingPrefix, written with
// the raw rows); a run that ends cleanly has written every count and
// removes the marks (clearCounting), and a run that finds marks left by a
// run that died turns them into rebuild marks (adoptCounting): when its
// pipeline is done, it derives those minutes' term and geo cells and
// counts again from their raw rows (RecountMarked). (The other tables'
// cells can be lost the same way, each table's sink writing at the end of
// its own bundles; tweets whose raw rows were lost too are lost: the
// resumed run does not read them again.)

// AdoptCounting turns the counting marks left in the sink s into rebuild
// marks, and returns how many minutes it marked.
func AdoptCounting(ctx context.Context, s *sink.Sink) (int, error) {
	return moveMarks(ctx, s, schemas.CountingPrefix, schemas.RebuildPrefix)
}

// Rebuild marks (schemas.RebuildPrefix) name minutes of a stream that
// died. Their Kafka offsets may have been committed past tweets whose raw
// rows were written but whose term, geo or frequency cells were still in
// the runner (each table's sink writes at the end of its own bundles), and
// the resumed run does not read them again. RecountMarked rebuilds them.

// ClearCounting removes the counting marks of the sink s.
func ClearCounting(ctx context.Context, s *sink.Sink) error {
	_, err := moveMarks(ctx, s, schemas.CountingPrefix, "")
	return err
}

// moveMarks renames the metadata rows named from+M to to+M (deletes them
// if to is empty), and returns how many.
func moveMarks(ctx context.Context, s *sink.Sink, from, to string) (int, error) {
	var cells []schemas.Cell
	n := 0
	err := sink.ScanPrefix(ctx, s, schemas.TableMeta, []byte(from), func(key, _ []byte) error {
		m := key[len(from):]
		n++
		if to != "" {
			cells = append(cells, schemas.MetaRow{Name: to + string(m)}.Cell())
		}
		cells = append(cells, schemas.Cell{Table: schemas.TableMeta, Key: bytes.Clone(key), Delete: true})
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reading the %s marks: %w", from, err)
	}
	if len(cells) == 0 {
		return 0, nil
	}
	if err := s.Write(ctx, cells); err != nil {
		return 0, fmt.Errorf("writing the %s marks: %w", to, err)
	}
	return n, nil
}
