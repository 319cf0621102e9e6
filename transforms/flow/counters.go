package flow

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/schemas"
)

// Namespace is the Beam metrics namespace of every counter of the project.
const Namespace = "tweetindex"

// Counter names. Every count of a run's summary is one of these Beam
// counters, so any runner that reports metrics reports the summary.
// They reconcile: read = indexed + duplicates + skipped + dead_lettered.
const (
	CounterRead         = "read"          // items decoded from records: tweets, control messages and rejects
	CounterIndexed      = "indexed"       // distinct tweets passed to the tables
	CounterDuplicates   = "duplicates"    // further copies of a tweet id, dropped
	CounterSkipped      = "skipped"       // stream control messages and keep-alives
	CounterDeadLettered = "dead_lettered" // items that could not be indexed
	// CounterOutOfRange counts tweets outside a run's event-time range
	// [From, To) (backfills). They are also counted as skipped.
	CounterOutOfRange = "out_of_range"
	// CounterCollisions counts indexed tweets whose row key is another
	// indexed tweet's (same second, same 32-bit hash): n - 1 for n tweets
	// on one row key. Both are stored (the raw cell is unique per tweet
	// id); the count says how often the key alone is ambiguous.
	CounterCollisions = "collisions"
	// CounterRowsDeleted counts the cells sinks deleted (every table):
	// the rows of tweets that compliance messages delete, and of versions
	// that later versions replace.
	CounterRowsDeleted = "rows_deleted"
	// CounterRetracted counts stored versions of tweets removed: replaced
	// by another version of the same id, or deleted by a compliance
	// message.
	CounterRetracted = "retracted"
	// CounterNotices counts the compliance notices recorded in the
	// metadata table (scrub_geo, status_withheld, user_withheld, v2
	// compliance events other than delete); they are skipped items too.
	CounterNotices = "notices"
)

var (
	rowsDeletedCount = NewCounter(CounterRowsDeleted)
	rowCounts        = func() map[schemas.Table]Counter {
		m := make(map[schemas.Table]Counter, len(schemas.Tables))
		for _, t := range schemas.Tables {
			m[t] = NewCounter(RowCounterName(t))
		}
		return m
	}()
)

// Counter is a Beam counter of the project's namespace that also counts in
// this process (LocalCounters), so that a process whose SDK workers run in
// it can show the counts while the run goes: Beam's own are only read back
// when the run ends.
type Counter struct {
	beam.Counter
	local *atomic.Int64
}

// localCounters holds every Counter's process-local count by name.
var localCounters sync.Map // name -> *atomic.Int64

// NewCounter returns the counter called name in Namespace. Counters of one
// name share their local count.
func NewCounter(name string) Counter {
	v, _ := localCounters.LoadOrStore(name, new(atomic.Int64))
	return Counter{beam.NewCounter(Namespace, name), v.(*atomic.Int64)}
}

// Inc adds n to the counter.
func (c Counter) Inc(ctx context.Context, n int64) {
	c.Counter.Inc(ctx, n)
	c.local.Add(n)
}

// LocalCounters returns the counts of every Counter in this process so far,
// by name. (They only grow, but for indexed, which Identify moves
// to skipped for a tweet an earlier run deleted.)
func LocalCounters() map[string]int64 {
	m := map[string]int64{}
	localCounters.Range(func(k, v any) bool {
		m[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return m
}

// SkippedCounterName returns the name of the counter of items skipped as
// kind, e.g. "skipped_user". They add up to the "skipped" counter, less
// out_of_range.
func SkippedCounterName(kind schemas.SkipKind) string { return "skipped_" + kind.Name() }

// RowCounterName returns the name of the counter of rows written to table,
// e.g. "rows_terms".
func RowCounterName(t schemas.Table) string { return "rows_" + t.Name() }

// CountRows adds cells to the per-table row counters. Sinks call it once the
// cells are durable, so the counters say what was written, not attempted.
// Frequency cells are the exception: see CountTableRows.
func CountRows(ctx context.Context, cells []schemas.Cell) {
	var t RowTally
	t.Add(cells)
	t.Count(ctx)
}

// RowTally adds up cells by table for a sink that makes them durable
// later than it takes them: Add as cells are taken, Count once they are
// durable.
type RowTally struct {
	rows    [256]int64
	deleted int64
}

// Add tallies cells.
func (t *RowTally) Add(cells []schemas.Cell) {
	for i := range cells {
		if cells[i].Delete {
			t.deleted++
			continue
		}
		t.rows[cells[i].Table]++
	}
}

// Count adds the tally to the row counters (as CountRows does) and resets it.
func (t *RowTally) Count(ctx context.Context) {
	if t.deleted > 0 {
		rowsDeletedCount.Inc(ctx, t.deleted)
	}
	for _, table := range schemas.Tables {
		if t.rows[table] > 0 {
			CountTableRows(ctx, table, t.rows[table])
		}
	}
	*t = RowTally{}
}

// CountTableRows adds n rows written to table to its row counter (and to
// this process's progress, LocalWritten, which counts every write). A
// TweetFrequency row is rewritten each time its count grows (early, on-time
// and late panes), and would be counted once per write: its rows are
// counted by GrowingTotalFn instead, once each, when it emits a minute and
// language for the first time, so that the summary's rows written equal
// the rows in the table.
func CountTableRows(ctx context.Context, table schemas.Table, n int64) {
	if table != schemas.TableFrequency {
		rowCounts[table].Inc(ctx, n)
	}
	localWritten.Add(n)
}
