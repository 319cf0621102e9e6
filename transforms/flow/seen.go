package flow

import (
	"context"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// DistributionCreatedAt is the Beam distribution of the created_at (Unix
// seconds) of the tweets a run read, within its range: its Min and Max are
// the earliest and latest (its Count and Sum mean nothing: each batch
// adds its earliest and its latest). A run without an event-time range
// records them as the range it observed (job.RunRecord.Seen).
const DistributionCreatedAt = "created_at"

var createdAt = beam.NewDistribution(Namespace, DistributionCreatedAt)

// Extent is the earliest and the latest created_at (Unix seconds) of the
// tweets read from one source.
type Extent struct{ Min, Max int64 }

// seen is this process's extent per source (a file, a member of an
// archive, a Kafka partition), for the runs whose workers run in it.
var (
	seenMu sync.Mutex
	seen   = map[string]Extent{}
)

// NoteSeen records that tweets created from lo to hi (Unix seconds) were
// read from source: in the Beam distribution DistributionCreatedAt, and
// in this process (SeenBySource).
func NoteSeen(ctx context.Context, source string, lo, hi int64) {
	createdAt.Update(ctx, lo)
	if hi != lo {
		createdAt.Update(ctx, hi)
	}
	seenMu.Lock()
	e, ok := seen[source]
	if !ok {
		e = Extent{lo, hi}
	}
	e.Min, e.Max = min(e.Min, lo), max(e.Max, hi)
	seen[source] = e
	seenMu.Unlock()
}

// SeenBySource returns the extents NoteSeen recorded in this process
// since the last ResetSeen, by source.
func SeenBySource() map[string]Extent {
	seenMu.Lock()
	defer seenMu.Unlock()
	out := make(map[string]Extent, len(seen))
	for s, e := range seen {
		out[s] = e
	}
	return out
}

// ResetSeen forgets the extents recorded in this process: a run whose
// workers run in it calls it as it starts, when no other run is under way.
func ResetSeen() {
	seenMu.Lock()
	seen = map[string]Extent{}
	seenMu.Unlock()
}
