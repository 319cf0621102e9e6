package query

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// Filter restricts a question to the tweets created in [From, To) and, if
// Lang is set, to one language. Bounds are exact to the second (the row
// key's grain; sub-second parts are dropped): counts add the frequency
// table's whole minutes and the raw rows of the partial minutes at the
// edges. A zero bound is the start or end of the data.
//
// PlaceCentres is for geo questions: by default they count and retrieve
// the tweets with exact coordinates only; with PlaceCentres, also those
// located by the centre of their place's bounding box (and the rows of a
// geo table written before the kind of point was recorded).
type Filter struct {
	From, To     time.Time
	Lang         string
	PlaceCentres bool
}

// Engine answers questions from the indexes of one sink. It is safe for
// concurrent use (tweetindex serve asks many questions of one engine); its
// knobs are set before the first question.
type Engine struct {
	// R reads the tables.
	R sink.Reader
	// Parallel is the number of concurrent range reads of a box search
	// (if 0: the Reader's ParallelReads if it has one, else 8).
	Parallel int
	// Budget is the number of geohash ranges a box is covered with (if 0:
	// the Reader's RangeBudget if it has one, else DefaultBudget).
	Budget int
	// Live says that a stream of this process writes the tables as they
	// are read (tweetindex index --serve): its steps write each table on
	// its own, so an index row (terms, geo) can be written a moment
	// before the raw row it points at. A retrieval then leaves such a
	// tweet out (it is in the answers asked a moment later) instead of
	// failing as on tables no one writes, where it means a damaged store.
	Live bool

	extentFrom, extentTo time.Time // the data's extent, read once
	collideState                   // the row keys recorded as collisions, read once

	extentMu sync.Mutex // guards extentFrom, extentTo

	authorsMu                    sync.Mutex // AuthorsIndexed, read once
	authorsKnown, authorsIndexed bool

	edgeWeightsMu                        sync.Mutex // EdgeWeightsIndexed, read once
	edgeWeightsKnown, edgeWeightsIndexed bool

	tokenizerMu sync.Mutex         // TokenizerVersions, read once
	tokenizer   *TokenizerVersions // nil until read
}

// NewEngine returns an engine over r.
func NewEngine(r sink.Reader) *Engine { return &Engine{R: r} }

// span is a resolved filter: [from, to) in Unix seconds.
type span struct {
	from, to int64
	lang     string
	centres  bool
	// collided, read when lang is set, lets the row keys of collisions
	// through the language filter of geo rows (langFilter).
	collided collisionSet
}

// resolve fills open bounds from the data's extent.
func (e *Engine) resolve(ctx context.Context, f Filter) (span, error) {
	if f.From.IsZero() || f.To.IsZero() {
		from, to, err := e.Extent(ctx)
		if err != nil {
			return span{}, err
		}
		if f.From.IsZero() {
			f.From = from
		}
		if f.To.IsZero() {
			f.To = to
		}
	}
	s := span{from: f.From.Unix(), to: f.To.Unix(), lang: f.Lang, centres: f.PlaceCentres}
	if s.to < s.from {
		s.to = s.from
	}
	return s, nil
}

func floorMinute(sec int64) int64 { return sec - floorMod(sec, 60) }

func ceilMinute(sec int64) int64 { return -floorMinute(-sec) }

// Extent returns the minutes the tables hold tweets of, [first, last+1
// minute), from the frequency table. Both are zero for empty tables.
func (e *Engine) Extent(ctx context.Context) (from, to time.Time, err error) {
	e.extentMu.Lock()
	defer e.extentMu.Unlock()
	if !e.extentFrom.IsZero() {
		return e.extentFrom, e.extentTo, nil
	}
	var lo, hi string
	if st, ok := e.R.(*storeio.Store); ok {
		// The frequency table's keys begin with their minute, in order:
		// its first and last cells hold the extent (a stream's server
		// reads it again every second; a scan would read every minute).
		lo, hi, err = minuteBounds(ctx, st)
	}
	if err == nil && (lo == "" || hi == "") {
		lo, hi, err = e.scanMinuteBounds(ctx)
	}
	if err != nil || lo == "" {
		return time.Time{}, time.Time{}, err
	}
	from, _ = time.Parse(schemas.MinuteLayout, lo)
	to, _ = time.Parse(schemas.MinuteLayout, hi)
	e.extentFrom, e.extentTo = from, to.Add(time.Minute)
	return e.extentFrom, e.extentTo, nil
}

// minuteBounds returns the first and last minutes of the store's
// frequency table, from its first and last cells ("" if either is not
// a count's key: an empty table, or a key it cannot read the minute of,
// which the scan then skips).
func minuteBounds(ctx context.Context, st *storeio.Store) (lo, hi string, err error) {
	cur, err := st.NewCursor(ctx, schemas.TableFrequency, nil, nil)
	if err != nil {
		return "", "", err
	}
	minute := func(key []byte) string {
		if len(key) < len(schemas.MinuteLayout) {
			return ""
		}
		return string(key[:len(schemas.MinuteLayout)])
	}
	if cur.First() {
		lo = minute(cur.Key())
	}
	if cur.Last() {
		hi = minute(cur.Key())
	}
	if err := cur.Close(); err != nil {
		return "", "", err
	}
	if lo == "" || hi == "" {
		return "", "", nil
	}
	return lo, hi, nil
}

// scanMinuteBounds is minuteBounds for a sink whose frequency table has
// no order across its partitions (Cassandra): a scan of every cell.
func (e *Engine) scanMinuteBounds(ctx context.Context) (lo, hi string, err error) {
	err = e.R.ScanAll(ctx, schemas.TableFrequency, func(key, _ []byte) error {
		if len(key) < len(schemas.MinuteLayout) {
			return nil
		}
		m := string(key[:len(schemas.MinuteLayout)])
		if lo == "" || m < lo {
			lo = m
		}
		if m > hi {
			hi = m
		}
		return nil
	})
	return lo, hi, err
}

// rowKeyAt returns the smallest row key of second sec.
func rowKeyAt(sec int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, schemas.RowKeyLen), uint64(sec))
}

// rowKeyTime returns the created_at second of a row key.
func rowKeyTime(k []byte) int64 { return int64(binary.BigEndian.Uint64(k)) }

// errStop ends a scan early without an error.
var errStop = errors.New("stop")

// decoder decodes stored tweets back into their fields.
type decoder struct {
	dec schemas.Decoder
	out schemas.Decoded
}

// decode returns the tweet stored under key as value.
func (d *decoder) decode(key, value []byte) (*schemas.Tweet, error) {
	d.out.Reset()
	d.dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: value}, &d.out)
	if len(d.out.Tweets) != 1 {
		return nil, fmt.Errorf("raw row %x does not decode to one tweet", key)
	}
	t := &d.out.Tweets[0]
	copy(t.RowKey[:], key)
	return t, nil
}

// afterRowKey returns a key after every raw key that begins with row key
// k and before those of the next row key.
func afterRowKey(k []byte) []byte {
	return schemas.RowKey(k[:schemas.RowKeyLen]).RawEnd()
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}
