package job

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// Summary is the account of one run, read back from the run's Beam counters.
// It reconciles: Read = Indexed + Duplicates + Skipped + DeadLettered.
type Summary struct {
	Read         int64 `json:"read"`
	Indexed      int64 `json:"indexed"`
	Duplicates   int64 `json:"duplicates"`
	Skipped      int64 `json:"skipped"`
	DeadLettered int64 `json:"dead_lettered"`
	OutOfRange   int64 `json:"out_of_range,omitempty"` // part of Skipped: tweets outside --from/--to
	// SkippedBy breaks the rest of Skipped down by kind (control,
	// compliance, user, list, tweet_count, space, deleted; see
	// schemas.SkipKind).
	SkippedBy map[string]int64 `json:"skipped_by,omitempty"`
	// Collisions counts indexed tweets that share their row key with
	// another (same second, same 32-bit hash); all of them are stored.
	Collisions int64 `json:"collisions,omitempty"`
	// Retracted counts stored versions of tweets removed: replaced by a
	// version of the same id, or deleted by a compliance message.
	Retracted int64 `json:"retracted,omitempty"`
	// Recounted is how many minutes' frequency counts the run recounted
	// from the raw table because stored tweets of theirs were removed.
	Recounted int `json:"recounted,omitempty"`
	// Notices counts the compliance notices other than deletes
	// (scrub_geo, status_withheld, user_withheld, v2 events) recorded in
	// the metadata table (notice/...); they are skipped items too.
	Notices int64 `json:"notices,omitempty"`
	// GeoScrubbed counts the geo rows that scrub_geo messages removed
	// when the pipeline was done.
	GeoScrubbed int `json:"geo_scrubbed,omitempty"`
	// SkippedFiles names the files --input matched and the run did not
	// read, with why ("PATH (a named pipe (FIFO))"; archiveio.Skipped):
	// they are not regular files, which reading could wait on for ever.
	SkippedFiles []string `json:"skipped_files,omitempty"`
	// UnreadableFiles names the files whose read failed (an I/O error, a
	// permission refused), with the error ("PATH (unreadable: read PATH:
	// input/output error)"); each is also a dead-lettered record (line 0,
	// the error its reason). Known for the reads of workers in the
	// run's process (prism, LOOPBACK).
	UnreadableFiles []string         `json:"unreadable_files,omitempty"`
	Rows            map[string]int64 `json:"rows"`
	// Cassandra counts what the Cassandra sink had acknowledged
	// (cassandraio's counters without their "cassandra_" prefix:
	// rows_written, requests, batches, retries); empty for the embedded
	// store.
	Cassandra map[string]int64 `json:"cassandra,omitempty"`
	Seconds   float64          `json:"seconds"`
	// TweetsPerSec is Read over Seconds; for a stream whose workers run in
	// this process, over ActiveSeconds.
	TweetsPerSec float64 `json:"tweets_per_second"`
	// ActiveSeconds is how long a stream was reading (gaps between reads
	// count up to a second each): its idle waits left out. Only known
	// when the workers run in this process.
	ActiveSeconds float64 `json:"active_seconds,omitempty"`
	// FlowStalls counts the times the readers read on although the run's
	// backlog was full, because deduplication had taken no tweet for
	// flow.StallLimit (tweets the runner held back): the run's memory
	// then grew with what waited. Only known when the workers run in
	// this process.
	FlowStalls int64 `json:"flow_stalls,omitempty"`
	// ReadSeconds is when, from the start of the run, the last item was
	// read; the rest of Seconds is the run's tail (writing what was read,
	// closing windows). Only known when the workers run in this process.
	ReadSeconds float64 `json:"read_seconds,omitempty"`
	// CompactSeconds is the part of the tail spent compacting the store
	// after a bounded load (pipelines.Config.NoCompact), 0 if it was not compacted.
	// The tables written through the memtable are compacted before the
	// sorted tables are ingested, in FlushSeconds: this is what is left.
	CompactSeconds float64 `json:"compact_seconds,omitempty"`
	// FlushSeconds is the part of the tail spent making a bounded load
	// durable (storeio.FlushOpen): the sorted term index merged and
	// ingested, the memtables flushed, and, unless pipelines.Config.NoCompact, the
	// tables written through them compacted before the ingestion.
	FlushSeconds float64 `json:"flush_seconds,omitempty"`
	// RecountSeconds is how long the recount of the marked minutes and of
	// the marked days' term counts took once the pipeline was done (the
	// days a run stored tweets in are all marked): after Seconds, not in
	// it.
	RecountSeconds float64 `json:"recount_seconds,omitempty"`
}

// TailSeconds returns the seconds from the last item read to the end of
// the run (0 if unknown), FlushSeconds and CompactSeconds included.
func (s Summary) TailSeconds() float64 {
	if s.ReadSeconds <= 0 {
		return 0
	}
	return max(0, s.Seconds-s.ReadSeconds)
}

// SummaryFromResult collects the project's counters from a pipeline result.
func SummaryFromResult(r beam.PipelineResult, elapsed time.Duration) Summary {
	counters := map[string]int64{}
	if r != nil {
		for _, c := range r.Metrics().AllMetrics().Counters() {
			if c.Key.Namespace != flow.Namespace {
				continue
			}
			counters[c.Key.Name] += c.Result()
		}
	}
	return summaryFromCounters(counters, elapsed)
}

// summaryFromCounters builds a summary from the project's counters, by
// name (flow.Counter*), and the run's wall time.
func summaryFromCounters(counters map[string]int64, elapsed time.Duration) Summary {
	s := Summary{
		Read:         counters[flow.CounterRead],
		Indexed:      counters[flow.CounterIndexed],
		Duplicates:   counters[flow.CounterDuplicates],
		Skipped:      counters[flow.CounterSkipped],
		DeadLettered: counters[flow.CounterDeadLettered],
		OutOfRange:   counters[flow.CounterOutOfRange],
		Collisions:   counters[flow.CounterCollisions],
		Retracted:    counters[flow.CounterRetracted],
		Notices:      counters[flow.CounterNotices],
		Rows:         map[string]int64{},
		Seconds:      elapsed.Seconds(),
	}
	for _, name := range []string{cassandraio.CounterRowsWritten, cassandraio.CounterRequests, cassandraio.CounterBatches, cassandraio.CounterRetries} {
		if n := counters[name]; n > 0 {
			if s.Cassandra == nil {
				s.Cassandra = map[string]int64{}
			}
			s.Cassandra[strings.TrimPrefix(name, "cassandra_")] = n
		}
	}
	for k := schemas.SkipKind(0); k < schemas.NumSkipKinds; k++ {
		if n := counters[flow.SkippedCounterName(k)]; n > 0 {
			if s.SkippedBy == nil {
				s.SkippedBy = map[string]int64{}
			}
			s.SkippedBy[k.Name()] = n
		}
	}
	for _, t := range schemas.Registry() {
		if t.Summarized {
			s.Rows[t.Name] = counters[flow.RowCounterName(t.Table)]
		}
	}
	if s.Seconds > 0 {
		s.TweetsPerSec = float64(s.Read) / s.Seconds
	}
	return s
}

// Reconciles reports whether every item read is accounted for.
func (s Summary) Reconciles() bool {
	return s.Read == s.Indexed+s.Duplicates+s.Skipped+s.DeadLettered
}

// WriteFile writes the summary as a JSON object to path.
func (s Summary) WriteFile(path string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// runCounts is how a run takes its summary's counts (runSummary).
type runCounts struct {
	local0 map[string]int64 // this process's counts when the run started
	gen    int64            // runsStarted when it started
	alone  bool             // no other run was under way when it started
}

// runsActive and runsStarted count the runs under way in this process and
// those ever started, so that a run knows whether another overlapped it.
var runsActive, runsStarted atomic.Int64

// startCounts notes the process's counts as a run starts; call done
// when the run is over.
func startCounts() (c runCounts, done func()) {
	c.alone = runsActive.Add(1) == 1
	c.gen = runsStarted.Add(1)
	c.local0 = flow.LocalCounters()
	if c.alone {
		// No other run is under way to read them: the extents of the
		// tweets read from here on are this run's (runSeen).
		flow.ResetSeen()
	}
	return c, func() { runsActive.Add(-1) }
}

// local reports whether this process's counts are the run's alone: every
// worker ran in it and no other run overlapped it (see runSummary).
func (c runCounts) local(inProcess bool) bool {
	return inProcess && c.alone && runsStarted.Load() == c.gen && runsActive.Load() == 1
}

// runSummary returns the summary of a run from its counters: the counts
// this process made during the run (flow.LocalCounters) when every worker
// ran in this process and no other run overlapped it, the runner's
// metrics (r) otherwise. The local counts are exact there, while prism
// v2.77 loses a bundle's counts now and then: the first reports of a
// counter that it does not know yet wait in a map by the counter's short
// id (jobservices/metrics.go, unprocessedPayloads) until it has asked the
// SDK what the id is, and a second bundle's report of the same counter
// meanwhile replaces the first's. Seen as summaries short of the tables
// by one bundle's rows: 290 raw rows of 3 M tweets, 6,552 frequency rows
// of 1 M (whose counter first reports at the run's end, from many
// bundles at once).
func runSummary(r beam.PipelineResult, c runCounts, inProcess bool, elapsed time.Duration) Summary {
	if !c.local(inProcess) {
		return SummaryFromResult(r, elapsed)
	}
	now := flow.LocalCounters()
	for name, n := range c.local0 {
		now[name] -= n
	}
	return summaryFromCounters(now, elapsed)
}
