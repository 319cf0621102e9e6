package kafkaio

import (
	"math"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
)

// offsetTracker tracks a partition's offset range: the SDK's offsetrange
// tracker for a known end, its growable tracker for the open end of an
// unbounded read, with two
// additions:
//
//   - checkpointOnly refuses every split but one at the current position
//     (fraction 0). Reads that commit offsets use it, so the part of a
//     range after a split is never read and committed before the part
//     before it; reads whose end is not an offset (a stop time not reached
//     yet) use it because half of "until the end of time" is no place to
//     start reading.
//   - the end estimate a growable range splits against is the partition's
//     latest high watermark, which the reader reports with setHighWatermark.
type offsetTracker struct {
	inner          sdf.BoundableRTracker
	checkpointOnly bool
	hwm            atomic.Int64

	// With emptyResidual, a range whose every offset is claimed is not
	// done until a checkpoint has split off an empty residual at its end:
	// resuming that residual is what commits the last offsets (see readFn).
	emptyResidual bool
	last          int64 // the last offset claimed
	stopped       bool  // a claim failed
	split         bool  // the range was split (the empty residual, or at a claimed offset)
}

func newOffsetTracker(rest offsetrange.Restriction, growable, checkpointOnly bool) *offsetTracker {
	t := &offsetTracker{checkpointOnly: checkpointOnly, last: rest.Start - 1}
	t.hwm.Store(rest.Start)
	if growable && rest.End == math.MaxInt64 {
		g, _ := offsetrange.NewGrowableTracker(rest, t) // only fails for a nil estimator
		t.inner = g
	} else {
		t.inner = offsetrange.NewTracker(rest)
	}
	return t
}

// Estimate implements offsetrange.RangeEndEstimator.
func (t *offsetTracker) Estimate() int64 { return t.hwm.Load() }

func (t *offsetTracker) setHighWatermark(o int64) { t.hwm.Store(o) }

// TryClaim implements sdf.RTracker.
func (t *offsetTracker) TryClaim(pos any) bool {
	ok := t.inner.TryClaim(pos)
	if ok {
		t.last = pos.(int64)
	} else {
		t.stopped = true
	}
	return ok
}

// GetError implements sdf.RTracker.
func (t *offsetTracker) GetError() error { return t.inner.GetError() }

// fullyClaimed reports whether every offset up to the end of the range is
// claimed and the range has not been split (the empty residual not yet
// split off).
func (t *offsetTracker) fullyClaimed() bool {
	rest := t.inner.GetRestriction().(offsetrange.Restriction)
	return t.emptyResidual && !t.stopped && !t.split && rest.End != math.MaxInt64 && t.last == rest.End-1
}

// TrySplit implements sdf.RTracker. A checkpoint (fraction 0) of a fully
// claimed range with emptyResidual splits off the empty residual.
func (t *offsetTracker) TrySplit(fraction float64) (primary, residual any, err error) {
	if t.checkpointOnly && fraction > 0 {
		return t.inner.GetRestriction(), nil, nil
	}
	if fraction == 0 && t.fullyClaimed() {
		t.split = true
		rest := t.inner.GetRestriction().(offsetrange.Restriction)
		return rest, offsetrange.Restriction{Start: rest.End, End: rest.End}, nil
	}
	primary, residual, err = t.inner.TrySplit(fraction)
	if residual != nil {
		t.split = true // the primary's end is a split point, not the range's end
	}
	return primary, residual, err
}

// GetProgress implements sdf.RTracker.
func (t *offsetTracker) GetProgress() (done, remaining float64) { return t.inner.GetProgress() }

// IsDone implements sdf.RTracker.
func (t *offsetTracker) IsDone() bool { return !t.fullyClaimed() && t.inner.IsDone() }

// GetRestriction implements sdf.RTracker.
func (t *offsetTracker) GetRestriction() any { return t.inner.GetRestriction() }

// IsBounded implements sdf.BoundableRTracker.
func (t *offsetTracker) IsBounded() bool { return t.inner.IsBounded() }
