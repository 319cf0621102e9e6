package kafkaio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// errDrained is the cause of a read's context cancelled by a drain.
var errDrained = errors.New("kafkaio: drained")

// untilDrained returns a context that is cancelled, with cause errDrained,
// when the read named drain is drained (ctx itself if drain is empty).
func untilDrained(ctx context.Context, drain string) (context.Context, func()) {
	ch := drainChan(drain)
	if ch == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-ch:
			cancel(errDrained)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// arenaSize is the size of the buffers record values are copied into: one
// allocation per many records instead of one per record.
const arenaSize = 256 << 10

// reader is the runtime half of the reading DoFns: a client and the loop
// that fetches a partition and emits its records as batches.
type reader struct {
	cfg    Config // with defaults
	client *kafka.Client
}

func newReader(cfg Config) (*reader, error) {
	cfg = cfg.withDefaults()
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	return &reader{cfg: cfg, client: c}, nil
}

func (r *reader) close() {
	if r != nil {
		closeClient(r.client)
	}
}

// outcome is why read returned.
type outcome int

const (
	ended      outcome = iota // the end of the range, or the stop time, is reached (nothing claimed past it)
	rangeDone                 // a claim failed: the range was split at or before it
	caughtUp                  // a poll found nothing more to read
	checkpoint                // the time to checkpoint has come
	drained                   // Drain was called
	backlogged                // the run's backlog is full (flow.Backlogged): end the bundle, which passes its output on
)

// readState is one ProcessElement call's read of a partition.
type readState struct {
	p      partitionRead
	source string
	rt     *sdf.LockRTracker
	ot     *offsetTracker
	we     *watermarkEstimator // nil for bounded reads
	emit   func(beam.EventTime, []schemas.Record)
	next   int64 // the next offset to read
	// from is the first offset the next record emitted accounts for
	// (schemas.Record.From): the restriction's start, then the offset
	// after the last record emitted. A checkpoint's residual starts there
	// too (after the last offset claimed), so a partition's records tile
	// its offsets across calls.
	from    int64
	claimed int   // records claimed (and emitted) in this call
	emitted int   // records emitted in this call (a message may hold several)
	hwm     int64 // the partition's high watermark at the last fetch
	// emptyAt is the offset of the last fetch if it found no records
	// below the high watermark, -1 otherwise.
	emptyAt int64
	// paced: the call can end its bundle (it checkpoints), and returns
	// backlogged when the run's backlog is full (flow.Backlogged).
	paced bool
}

func (r *reader) newState(p partitionRead, rt *sdf.LockRTracker, we *watermarkEstimator, emit func(beam.EventTime, []schemas.Record)) *readState {
	rest := rt.GetRestriction().(offsetrange.Restriction)
	ot, _ := rt.Rt.(*offsetTracker)
	return &readState{p: p, source: p.source(), rt: rt, ot: ot, we: we, emit: emit, next: rest.Start, from: rest.Start, hwm: -1, emptyAt: -1}
}

// end returns the current end of the restriction, which a split may lower.
func (s *readState) end() int64 { return s.rt.GetRestriction().(offsetrange.Restriction).End }

// read fetches and emits records from s.next on, until the restriction is
// done, a poll finds nothing new, until passes, or the read is drained.
func (r *reader) read(ctx context.Context, s *readState, until time.Time) (outcome, error) {
	drain := drainChan(r.cfg.Drain)
	// A drain cancels a fetch that waits for the broker (down or
	// stalled): the drain does not wait for it.
	ctx, cancel := untilDrained(ctx, r.cfg.Drain)
	defer cancel()
	for {
		if out, stop, err := stopped(ctx, drain); stop {
			return out, err
		}
		if s.next >= s.end() {
			return ended, nil
		}
		start := time.Now()
		resp, err := r.fetch(ctx, s)
		if err != nil {
			if errors.Is(context.Cause(ctx), errDrained) {
				if waited := time.Since(start); waited >= time.Second {
					printWait("kafka drained while waiting", []any{"source", s.source, "waited_seconds", roundWait(waited).Seconds(),
						"brokers", strings.Join(r.cfg.Brokers, ","), "offset", s.next},
						"kafkaio: %s: drained while waiting %v for the Kafka broker %s (fetching at offset %d); stopped waiting",
						s.source, roundWait(waited), strings.Join(r.cfg.Brokers, ","), s.next)
				}
				return drained, nil
			}
			return 0, err
		}
		if resp == nil {
			continue // skipped deleted offsets; fetch again
		}
		n, out, stop, err := r.emitRecords(ctx, s, resp)
		if err != nil {
			return 0, err
		}
		notePosition(s)
		if stop {
			return out, nil
		}
		if s.next >= s.end() {
			// The range is read: end now rather than pause for the
			// backlog, so that the read ends with its last records (a
			// paused read's empty rest would hold the run's end up).
			return ended, nil
		}
		if s.paced && flow.Backlogged() {
			return backlogged, nil
		}
		if n == 0 && s.next >= s.hwm {
			return caughtUp, nil
		}
		if n == 0 && s.hwm >= s.end() && s.next == s.emptyAt {
			// Two fetches in a row found no record between here and a
			// high watermark past the end (an aborted transaction, a
			// compacted tail): the range is done.
			return ended, nil
		}
		s.emptyAt = -1
		if n == 0 {
			s.emptyAt = s.next
		}
		if time.Now().After(until) {
			return checkpoint, nil
		}
	}
}

// stopped reports whether a read stops before its next fetch, and how:
// drained (drain is closed, or ctx was cancelled by it: untilDrained's
// context is done as soon as drain is closed, and a select would pick
// either), or ctx's error.
func stopped(ctx context.Context, drain <-chan struct{}) (outcome, bool, error) {
	select {
	case <-drain:
		return drained, true, nil
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), errDrained) {
			return drained, true, nil
		}
		return 0, true, ctx.Err()
	default:
		return 0, false, nil
	}
}

// fetch fetches records at s.next, retrying failures with backoff. A nil
// response without error means: fetch again (see outOfRange).
func (r *reader) fetch(ctx context.Context, s *readState) (*kafka.FetchResponse, error) {
	var resp *kafka.FetchResponse
	what := fmt.Sprintf("fetching %s at offset %d", s.source, s.next)
	err := retry(ctx, r.cfg, r.cfg.RetryTimeout, what, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, r.cfg.PollTimeout+requestTimeout)
		defer cancel()
		res, err := r.client.Fetch(ctx, &kafka.FetchRequest{
			Topic:     s.p.Topic,
			Partition: s.p.Partition,
			Offset:    s.next,
			MinBytes:  1,
			MaxBytes:  int64(r.cfg.MaxFetchBytes),
			MaxWait:   r.cfg.PollTimeout,
		})
		if err != nil {
			return err
		}
		if res.Error != nil && !errors.Is(res.Error, kafka.OffsetOutOfRange) {
			return res.Error
		}
		resp = res
		return nil
	}, func(err error) {
		reconnects.Inc(ctx, 1)
		log.Warnf(ctx, "kafkaio: %s: %v; retrying", what, err)
	})
	if err != nil {
		return nil, err
	}
	if resp.Error != nil { // offset out of range
		return r.outOfRange(ctx, s)
	}
	s.hwm = resp.HighWatermark
	if s.ot != nil {
		s.ot.setHighWatermark(resp.HighWatermark)
	}
	return resp, nil
}

// outOfRange handles a fetch at an offset outside the partition's log. Below
// the log's start, the records were deleted (retention) before they were
// read: the read moves to the log's start and counts the offsets skipped.
// At or past its end, the offset is not written yet (a stop offset, or a
// split of the range, ahead of the log): the read waits PollTimeout, as a
// fetch at the end of the log would, and reports the partition caught up.
func (r *reader) outOfRange(ctx context.Context, s *readState) (*kafka.FetchResponse, error) {
	ids := []int{s.p.Partition}
	first, err := listOffsets(ctx, r.client, r.cfg, ids, kafka.FirstOffset)
	if err != nil {
		return nil, err
	}
	if f := first[s.p.Partition]; s.next < f {
		log.Warnf(ctx, "kafkaio: %s: offsets [%d, %d) were deleted by the broker before they were read", s.source, s.next, f)
		offsetsSkipped.Inc(ctx, f-s.next)
		s.next = f
		return nil, nil
	}
	last, err := listOffsets(ctx, r.client, r.cfg, ids, kafka.LastOffset)
	if err != nil {
		return nil, err
	}
	if s.next < last[s.p.Partition] {
		return nil, nil // the log moved on meanwhile: fetch again
	}
	t := time.NewTimer(r.cfg.PollTimeout)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	s.hwm = last[s.p.Partition]
	return &kafka.FetchResponse{Topic: s.p.Topic, Partition: s.p.Partition, HighWatermark: s.hwm, Records: kafka.NewRecordReader()}, nil
}

// batcher accumulates records into one output element.
type batcher struct {
	recs           []schemas.Record
	bytes          int64
	minEv, maxEv   int64 // tweet times, Unix seconds
	haveEv         bool
	firstKafkaTime int64 // Unix ms
}

// emitRecords emits the records of resp at or after s.next, claiming each,
// in batches of at most MaxBatchRecords (a batch may end with all the
// records of a message that holds several: appendMessage). It returns the number of records
// emitted, and whether reading ends here, and why: ended at the end of the
// range or the stop time, rangeDone when a claim fails, drained when the
// read was drained between two batches.
func (r *reader) emitRecords(ctx context.Context, s *readState, resp *kafka.FetchResponse) (n int, out outcome, stop bool, err error) {
	batches := []protocol.RecordReader{resp.Records}
	if st, ok := resp.Records.(*protocol.RecordStream); ok {
		batches = st.Records
	}
	var (
		b     batcher
		arena []byte
		now   = time.Now()
		drain = drainChan(r.cfg.Drain)
	)
	// flush emits the batch; it reports whether the read was drained.
	flush := func() bool {
		if len(b.recs) > 0 {
			ts := mtime.FromMilliseconds(b.firstKafkaTime)
			if b.haveEv {
				ts = mtime.FromMilliseconds(b.minEv * 1000)
			}
			if s.we != nil {
				s.we.observe(b.maxEv*1000, b.haveEv, now)
				if !b.haveEv {
					ts = mtime.Max(ts, mtime.FromTime(s.we.CurrentWatermark()))
				}
			}
			s.emit(ts, b.recs)
			s.emitted += len(b.recs)
			recordsRead.Inc(ctx, int64(len(b.recs)))
			bytesRead.Inc(ctx, b.bytes)
			n += len(b.recs)
			b = batcher{}
		}
		select {
		case <-drain:
			return true
		default:
			return false
		}
	}
	for _, batch := range batches {
		_, control := batch.(*protocol.ControlBatch)
		for {
			rec, err := batch.ReadRecord()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				// A batch that does not decode is fetched again from the
				// first offset not yet emitted.
				reconnects.Inc(ctx, 1)
				log.Warnf(ctx, "kafkaio: %s: reading fetched records at offset %d: %v; fetching again", s.source, s.next, err)
				if flush() {
					return n, drained, true, nil
				}
				return n, 0, false, nil
			}
			data, err := r.take(s, rec, control, &arena)
			if err != nil {
				return n, 0, false, err
			}
			switch {
			case rec.Offset < s.next || control:
				continue // before the offset fetched, or a transaction marker
			case rec.Offset >= s.end(), s.p.StopTime != 0 && rec.Time.UnixMilli() >= s.p.StopTime:
				flush()
				return n, ended, true, nil
			case !s.rt.TryClaim(rec.Offset):
				flush()
				return n, rangeDone, true, nil
			}
			s.claimed++
			if len(b.recs) == 0 {
				b.recs = make([]schemas.Record, 0, r.cfg.MaxBatchRecords)
				b.firstKafkaTime = rec.Time.UnixMilli()
				b.minEv, b.maxEv = math.MaxInt64, math.MinInt64
			}
			first := len(b.recs)
			msg := schemas.Record{Origin: schemas.Origin{Source: s.source, Line: rec.Offset}, Data: data, From: s.from, Start: s.p.Start}
			if b.recs, err = appendMessage(ctx, b.recs, msg); err != nil {
				return n, 0, false, err
			}
			s.from = rec.Offset + 1
			b.bytes += int64(len(data))
			for _, r := range b.recs[first:] {
				if sec, ok := schemas.EventTime(r.Data); ok {
					b.minEv, b.maxEv, b.haveEv = min(b.minEv, sec), max(b.maxEv, sec), true
				}
			}
			s.next = rec.Offset + 1
			if len(b.recs) >= r.cfg.MaxBatchRecords && flush() {
				return n, drained, true, nil
			}
		}
	}
	if flush() {
		return n, drained, true, nil
	}
	return n, 0, false, nil
}

// take returns the value of rec, copied into *arena, if rec is a data
// record at or after s.next; for a transaction marker it moves s.next past
// it. It releases the record's buffers.
func (r *reader) take(s *readState, rec *protocol.Record, control bool, arena *[]byte) ([]byte, error) {
	if rec.Key != nil {
		rec.Key.Close()
	}
	if rec.Value == nil {
		return nil, nil
	}
	defer rec.Value.Close()
	if rec.Offset < s.next {
		return nil, nil
	}
	if control {
		s.next = rec.Offset + 1
		return nil, nil
	}
	size := rec.Value.Len()
	a := *arena
	if cap(a)-len(a) < size {
		a = make([]byte, 0, max(size, arenaSize))
	}
	data := a[len(a) : len(a)+size : len(a)+size]
	if _, err := io.ReadFull(rec.Value, data); err != nil {
		return nil, fmt.Errorf("kafkaio: %s: reading record at offset %d: %w", s.source, rec.Offset, err)
	}
	*arena = a[:len(a)+size]
	return data, nil
}

// finish ends the restriction at the last claimed offset: the rest of it,
// if any, is given up (its end or a stop time was reached, or the read was
// drained).
func finish(rt *sdf.LockRTracker) error {
	rt.TrySplit(0)
	if !rt.IsDone() {
		return fmt.Errorf("kafkaio: cannot end restriction %v", rt.GetRestriction())
	}
	return nil
}
