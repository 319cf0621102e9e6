package archiveio

import (
	"context"
	"fmt"

	"github.com/tweetindex/tweetindex/schemas"
)

// Arena sizes. A batch's records are carved out of one arena; its size
// follows the average record size of the previous batch, so that small
// records do not pin a mostly empty 4 MiB buffer downstream.
const (
	minArena   = 64 << 10
	firstArena = 1 << 20
	minRead    = 4 << 10 // the least free space worth a Read call
)

// batcher collects records into batches and hands them to the callback.
//
// Line records are carved out of arena, a buffer that the line reader fills
// straight from the decompressed stream. Once a batch is handed over, its
// arena and record slice belong to the callback: the batcher starts new
// ones, so the callback may keep both.
type batcher struct {
	ctx   context.Context
	opts  Options
	fn    func([]schemas.Record) error
	stats *Stats

	recs  []schemas.Record
	bytes int // record bytes in recs

	arena []byte // len(arena) == cap(arena)
	off   int    // arena[:off] is taken by records or by a reader's data

	lastAvg int // average record size of the previous batch
}

func newBatcher(ctx context.Context, opts Options, stats *Stats, fn func([]schemas.Record) error) *batcher {
	return &batcher{ctx: ctx, opts: opts, fn: fn, stats: stats}
}

// add appends rec to the batch and reports whether the batch is full.
func (b *batcher) add(rec schemas.Record) bool {
	if b.recs == nil {
		b.recs = make([]schemas.Record, 0, b.recCap())
	}
	b.recs = append(b.recs, rec)
	b.bytes += len(rec.Data)
	b.stats.Records++
	if rec.Fault != "" {
		b.stats.Faults++
	}
	return len(b.recs) >= b.opts.BatchRecords || b.bytes >= b.opts.BatchBytes
}

// fault appends a faulted record and reports whether the batch is full.
func (b *batcher) fault(o schemas.Origin, data []byte, fault string) bool {
	return b.add(schemas.Record{Origin: o, Data: data, Fault: fault})
}

// recCap is the capacity of a new batch's record slice.
func (b *batcher) recCap() int {
	n := b.opts.BatchRecords
	if b.lastAvg > 0 {
		if m := b.opts.BatchBytes/b.lastAvg + 1; m < n {
			n = m
		}
	}
	return min(n, 1<<16)
}

// flush hands the batch to the callback, if it holds any record, and
// starts a new arena holding a copy of pending (the unconsumed bytes of the
// current reader), with room for at least want bytes in all. The context is
// checked before each batch.
func (b *batcher) flush(pending []byte, want int) error {
	if len(b.recs) > 0 {
		if err := b.ctx.Err(); err != nil {
			return fmt.Errorf("archiveio: %w", err)
		}
		b.lastAvg = b.bytes/len(b.recs) + 1
		recs := b.recs
		b.recs, b.bytes = nil, 0
		if err := b.fn(recs); err != nil {
			return err
		}
	}
	b.newArena(pending, want)
	return nil
}

// newArena replaces the arena (whose records now belong to the callback)
// with a fresh one that starts with a copy of pending.
func (b *batcher) newArena(pending []byte, want int) {
	size := firstArena
	if b.lastAvg > 0 {
		size = b.lastAvg*b.opts.BatchRecords + b.lastAvg
	}
	size = max(min(size, b.opts.BatchBytes), minArena, want, len(pending)+minRead)
	arena := make([]byte, size)
	b.off = copy(arena, pending)
	b.arena = arena
}

// room makes sure the arena has at least minRead free bytes after off,
// without moving anything: it starts a new arena (flushing nothing) only
// when there is no arena yet or the current one is full. It is used when a
// reader starts, holding no pending data.
func (b *batcher) room() {
	if b.arena == nil || len(b.arena)-b.off < minRead {
		b.newArena(nil, 0)
	}
}

// close hands over the last batch.
func (b *batcher) close() error {
	if len(b.recs) == 0 {
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return fmt.Errorf("archiveio: %w", err)
	}
	recs := b.recs
	b.recs = nil
	return b.fn(recs)
}
