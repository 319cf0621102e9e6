package kafkaio

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn4x1[context.Context, state.Provider, string, []byte, error](&commitAckedFn{})
}

// CommitAcked commits, for each partition of cfg.Topic, the offset before
// which every record is acknowledged in full: acks is a PCollection of
// KV<source, encoded acknowledgements> (schemas.AckSet.Encode; the sinks'
// WriteAcked return them), keyed by the partition's source name
// "kafka:TOPIC/PARTITION". cfg must have Commit and CommitAcked set, and be
// the configuration the read was made with.
//
// A record needs the units of work its expectation says (schemas.Ack); it
// is finished when the units done reach them, and it then accounts for the
// offsets [From, offset+1). A partition's records tile its offsets from
// the read's start, so the offsets finished form ranges; the offset
// committed is the end of the range that begins at the read's start (or at
// the last offset committed). It never goes backwards (commitOffset).
//
// The state is one value per partition, in the global window: the offset
// reached, the finished ranges past it, and the records seen but not
// finished. Nothing is emitted.
func CommitAcked(s beam.Scope, cfg Config, acks beam.PCollection) {
	s = s.Scope("kafkaio.CommitAcked")
	beam.ParDo0(s, &commitAckedFn{Config: cfg, Progress: state.MakeValueState[[]byte]("progress")}, acks)
}

// commitAckedFn is the DoFn of CommitAcked.
type commitAckedFn struct {
	Config   Config
	Progress state.Value[[]byte]

	r *reader
}

// Setup connects.
func (f *commitAckedFn) Setup() error {
	r, err := newReader(f.Config)
	f.r = r
	return err
}

// Teardown closes the connections.
func (f *commitAckedFn) Teardown() { f.r.close() }

// ProcessElement adds a batch of acknowledgements of partition source to
// its progress and commits what the progress allows.
func (f *commitAckedFn) ProcessElement(ctx context.Context, sp state.Provider, source string, data []byte) error {
	partition, err := partitionOf(source, f.Config.Topic)
	if err != nil {
		return err
	}
	buf, _, err := f.Progress.Read(sp)
	if err != nil {
		return err
	}
	pr, err := decodeAckProgress(buf)
	if err != nil {
		return err
	}
	if err := schemas.DecodeAcks(source, data, pr.add); err != nil {
		return fmt.Errorf("kafkaio: acknowledgements of %s: %w", source, err)
	}
	if pr.over > 0 {
		// A record acknowledged beyond its expectation: the commit may have
		// passed it before its tables were written. A bug, not a state of
		// the input: say so loudly, but go on.
		overAcknowledged.Add(int64(pr.over))
		acksOver.Inc(ctx, int64(pr.over))
		log.Errorf(ctx, "kafkaio: %s: %d records acknowledged beyond their expected units of work (last at offset %d)", source, pr.over, pr.overAt)
	}
	pr.advance()
	if pr.next > pr.committed {
		p := partitionRead{Topic: f.Config.Topic, Partition: partition}
		if f.r.commit(ctx, p, pr.next) {
			pr.committed = pr.next
		}
	}
	return f.Progress.Write(sp, pr.encode())
}

// partitionOf returns the partition of source, "kafka:TOPIC/PARTITION".
func partitionOf(source, topic string) (int, error) {
	rest, ok := strings.CutPrefix(source, "kafka:"+topic+"/")
	if !ok {
		return 0, fmt.Errorf("kafkaio: acknowledgement of %q, not a partition of topic %s", source, topic)
	}
	return strconv.Atoi(rest)
}

// ackProgress is how far a partition's records are finished.
type ackProgress struct {
	// start is the offset the read began at, -1 until an expectation says.
	start int64
	// next is the first offset not known to be finished: every record
	// before it is (from start on).
	next int64
	// committed is the last offset committed (start until then).
	committed int64
	// done are the finished ranges [from, to) past next, sorted and
	// disjoint, not touching next.
	done []ackRange
	// pending are the records with units done or expected, not finished.
	pending map[int64]*pendingRecord

	// over counts the acknowledgements of this call that found their
	// record finished already, or finished it beyond its units (not
	// stored); overAt is the offset of the last.
	over   int
	overAt int64
}

// overAcknowledged counts, in this process, the records CommitAcked found
// acknowledged beyond their expectation (see OverAcknowledged).
var overAcknowledged atomic.Int64

// OverAcknowledged returns how many times the CommitAcked stages of this
// process found a record acknowledged beyond the units of work its
// expectation named: each is a record the commit may have passed before
// its tables were written. Tests check it stays 0; the counter
// kafka_acks_over says the same of a whole run.
func OverAcknowledged() int64 { return overAcknowledged.Load() }

type ackRange struct{ from, to int64 }

type pendingRecord struct {
	done, units int32
	expect      bool
	from        int64
}

func newAckProgress() *ackProgress {
	return &ackProgress{start: -1, next: -1, committed: -1, pending: map[int64]*pendingRecord{}}
}

// add adds one acknowledgement.
func (pr *ackProgress) add(a schemas.Ack) {
	if a.Expect && pr.start < 0 {
		pr.start, pr.next, pr.committed = a.Start, a.Start, a.Start
	}
	if pr.start >= 0 && a.Offset < pr.next {
		pr.over, pr.overAt = pr.over+1, a.Offset // finished already
		return
	}
	p := pr.pending[a.Offset]
	if p == nil {
		p = &pendingRecord{}
		pr.pending[a.Offset] = p
	}
	p.done += a.Done
	if a.Expect {
		p.expect, p.units, p.from = true, a.Units, a.From
	}
	if p.expect && p.done >= p.units {
		if p.done > p.units {
			pr.over, pr.overAt = pr.over+1, a.Offset
		}
		delete(pr.pending, a.Offset)
		pr.finish(ackRange{p.from, a.Offset + 1})
	}
}

// finish adds a finished range to done, merging it with its neighbours.
func (pr *ackProgress) finish(r ackRange) {
	i, _ := slices.BinarySearchFunc(pr.done, r.from, func(x ackRange, from int64) int {
		switch {
		case x.from < from:
			return -1
		case x.from > from:
			return 1
		}
		return 0
	})
	pr.done = slices.Insert(pr.done, i, r)
	// Merge with the previous range and the following ones.
	if i > 0 && pr.done[i-1].to >= pr.done[i].from {
		pr.done[i-1].to = max(pr.done[i-1].to, pr.done[i].to)
		pr.done = slices.Delete(pr.done, i, i+1)
		i--
	}
	for i+1 < len(pr.done) && pr.done[i].to >= pr.done[i+1].from {
		pr.done[i].to = max(pr.done[i].to, pr.done[i+1].to)
		pr.done = slices.Delete(pr.done, i+1, i+2)
	}
}

// advance moves next over the finished ranges that begin at or before it.
func (pr *ackProgress) advance() {
	if pr.start < 0 {
		return
	}
	n := 0
	for n < len(pr.done) && pr.done[n].from <= pr.next {
		pr.next = max(pr.next, pr.done[n].to)
		n++
	}
	pr.done = slices.Delete(pr.done, 0, n)
}

var errProgress = errors.New("kafkaio: malformed acknowledgement progress")

func (pr *ackProgress) encode() []byte {
	b := make([]byte, 0, 32+16*len(pr.done)+24*len(pr.pending))
	b = binary.AppendVarint(b, pr.start)
	b = binary.AppendVarint(b, pr.next)
	b = binary.AppendVarint(b, pr.committed)
	b = binary.AppendUvarint(b, uint64(len(pr.done)))
	for _, r := range pr.done {
		b = binary.AppendVarint(b, r.from)
		b = binary.AppendVarint(b, r.to)
	}
	b = binary.AppendUvarint(b, uint64(len(pr.pending)))
	for off, p := range pr.pending {
		b = binary.AppendVarint(b, off)
		b = binary.AppendVarint(b, int64(p.done))
		b = binary.AppendVarint(b, int64(p.units))
		e := int64(0)
		if p.expect {
			e = 1
		}
		b = binary.AppendVarint(b, e)
		b = binary.AppendVarint(b, p.from)
	}
	return b
}

func decodeAckProgress(b []byte) (*ackProgress, error) {
	pr := newAckProgress()
	if len(b) == 0 {
		return pr, nil
	}
	bad := false
	v := func() int64 {
		x, n := binary.Varint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return x
	}
	u := func() uint64 {
		x, n := binary.Uvarint(b)
		if n <= 0 || x > uint64(len(b)) {
			bad = true
			return 0
		}
		b = b[n:]
		return x
	}
	pr.start, pr.next, pr.committed = v(), v(), v()
	for n := u(); n > 0 && !bad; n-- {
		pr.done = append(pr.done, ackRange{v(), v()})
	}
	for n := u(); n > 0 && !bad; n-- {
		off := v()
		p := &pendingRecord{done: int32(v()), units: int32(v())}
		p.expect = v() == 1
		p.from = v()
		pr.pending[off] = p
	}
	if bad || len(b) > 0 {
		return nil, errProgress
	}
	return pr, nil
}
