package transforms

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// Identities is what Identify needs of a sink: the identity rows and the
// stored raw JSON of tweets already in the tables, whether a minute is
// counted, and the names of metadata rows (the scrub_geo notices:
// GeoScrubbed). storeio and cassandraio implement it over the embedded
// store and a Cassandra keyspace.
type Identities interface {
	// Identities returns the identity rows of ids that the sink holds.
	Identities(ctx context.Context, ids []uint64) (map[uint64]schemas.IdentityRow, error)
	// RawJSON returns the stored JSON of tweet id under row key k, and
	// whether the sink holds it.
	RawJSON(ctx context.Context, k schemas.RowKey, id uint64) ([]byte, bool, error)
	// RowTweets calls fn with the id and stored JSON of every tweet the
	// sink holds under row key k (more than one only after a collision).
	RowTweets(ctx context.Context, k schemas.RowKey, fn func(id uint64, json []byte) error) error
	// Collide reports, for each row of rows, whether the sink holds a
	// tweet of another id under the row's key (Identifier asks it of every
	// new tweet of a run into a sink that is not fresh, so a sink answers
	// a batch at once).
	Collide(ctx context.Context, rows []schemas.IdentityRow) ([]bool, error)
	// Counted reports whether the sink's frequency table holds a count
	// (of any language) for minute (YYYYMMDDhhmm).
	Counted(ctx context.Context, minute string) (bool, error)
	// ScanMeta calls fn with the name of each metadata row from from
	// (included) to to (excluded), in order.
	ScanMeta(ctx context.Context, from, to string, fn func(name string) error) error
}

// ScanFunc calls fn for every cell of table with start <= key < end, in
// key order: storeio.Store.Scan and cassandraio.Reader.Scan.
type ScanFunc func(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error

// errCounted stops MinuteCounted's scan at the first count.
var errCounted = errors.New("counted")

// MinuteCounted is Identities.Counted for a sink read through scan: it
// scans the minute's frequency cells, up to the first.
func MinuteCounted(ctx context.Context, scan ScanFunc, minute string) (bool, error) {
	at, err := time.ParseInLocation(schemas.MinuteLayout, minute, time.UTC)
	if err != nil {
		return false, fmt.Errorf("counted: minute %q: %w", minute, err)
	}
	err = scan(ctx, schemas.TableFrequency, []byte(minute), []byte(schemas.Minute(at.Unix()+60)), func(_, _ []byte) error { return errCounted })
	if errors.Is(err, errCounted) {
		return true, nil
	}
	return false, err
}

// Identifier reconciles deduplicated batches with the tweets a sink
// already holds, through its identity table, so that one tweet id is
// stored once across runs (see Identify). Sinks run it in the
// deduplication stage, after DedupFn and before the tables' transforms, so
// that it sees what earlier bundles of the same key wrote; what this
// bundle let through, not yet written, it remembers itself.
type Identifier struct {
	// Sink is the sink's identity table and raw tweets.
	Sink Identities
	// Fresh says the sink held no identity row when the run began (see
	// job.Run): then no earlier run stored a tweet, deduplication's
	// state knows every id this run let through, and a new tweet needs no
	// lookup; replacements and deletes still look up what earlier bundles
	// wrote.
	Fresh bool
	// Ack passes on the acknowledgements of the batches and adds the
	// units of the tweets it drops (see DedupAcknowledging).
	Ack bool
	// Write, when set, writes cells to the sink and returns once they are
	// durable. Identify then removes what a batch retracts from the sink
	// itself, before it returns the batch (see retractDurably), so that a
	// crash anywhere leaves a state that running again completes. Left
	// nil, the tables' transforms alone delete the retracted cells.
	Write func(ctx context.Context, cells []schemas.Cell) error

	// counted caches, per minute, whether the frequency table held a
	// count for it when this Identifier first asked (see markCounted). It
	// outlives bundles: a count of an earlier run does not go away during
	// this one, and a count this run writes only adds a needless recount.
	counted map[string]bool

	dec      schemas.Decoder
	bundle   map[uint64]schemas.IdentityRow // what this bundle let through or deleted
	tweets   map[uint64]schemas.Tweet       // the tweets this bundle let through
	inBundle []uint64                       // ids of this batch found in bundle
}

// fromBundle reports whether this batch found id's identity in what this
// bundle wrote, not in the sink.
func (x *Identifier) fromBundle(id uint64) bool { return slices.Contains(x.inBundle, id) }

// StartBundle forgets the previous bundle, whose writes the sink now holds.
func (x *Identifier) StartBundle() {
	if x.bundle == nil {
		x.bundle = map[uint64]schemas.IdentityRow{}
		x.tweets = map[uint64]schemas.Tweet{}
	}
	clear(x.bundle)
	clear(x.tweets)
}

// Identify reconciles one batch:
//
//   - a tweet whose id has a tombstone (a compliance message deleted it,
//     in this run or an earlier one) is dropped: skipped, kind deleted
//     (it moves from the indexed count to the skipped one);
//   - a tweet (or replacement) whose id is stored as another version
//     replaces it: the stored version is read back and put in Retracted,
//     so that its raw, term and geo cells are deleted (a later run's
//     version replaces an earlier run's);
//   - a delete whose id is stored retracts the stored version too.
//
// A tweet stored with the same row key (a run over the same input again)
// is written again as it is: the same cells.
func (x *Identifier) Identify(ctx context.Context, b TweetBatch) (TweetBatch, error) {
	if x.bundle == nil {
		x.StartBundle()
	}
	ids := make([]uint64, 0, len(b.Tweets)+len(b.Replacements)+len(b.Deletes))
	for i := range b.Tweets {
		// On a fresh sink a new tweet needs no lookup: deduplication knows
		// every id of the run, deletes included. Not for a tweet whose id
		// does not carry its created_at: its delete is remembered under
		// the day of the id, which a stream may forget before the day of
		// the tweet, while the tombstone stays.
		if !x.Fresh || !IDTimeIsCreatedAt(&b.Tweets[i]) {
			ids = append(ids, b.Tweets[i].ID)
		}
	}
	for i := range b.Replacements {
		ids = append(ids, b.Replacements[i].ID)
	}
	ids = append(ids, b.Deletes...)
	if len(ids) == 0 {
		// Only new tweets of a fresh sink: nothing to look up.
		b.stored(func(t *schemas.Tweet) {
			x.bundle[t.ID] = schemas.IdentityRow{ID: t.ID, Key: t.RowKey}
			x.tweets[t.ID] = *t
		})
		return b, nil
	}
	stored, err := x.Sink.Identities(ctx, ids)
	if stored == nil {
		stored = map[uint64]schemas.IdentityRow{}
	}
	if err != nil {
		return b, fmt.Errorf("identify: %w", err)
	}
	x.inBundle = x.inBundle[:0]
	for _, id := range ids {
		if r, ok := x.bundle[id]; ok {
			stored[id] = r
			x.inBundle = append(x.inBundle, id)
		}
	}
	out := TweetBatch{Retracted: b.Retracted, Collided: b.Collided, Recount: b.Recount}
	if x.Ack {
		out.Acks = b.Acks
	}
	var fromSink []schemas.Tweet // versions retracted that the sink holds
	retract := func(id uint64, except schemas.RowKey) error {
		r, ok := stored[id]
		if !ok || r.Deleted || r.Key == except {
			return nil
		}
		if t, ok := x.tweets[id]; ok && t.RowKey == r.Key {
			out.Retracted = append(out.Retracted, t)
			return nil
		}
		old, err := readVersion(ctx, x.Sink, &x.dec, r.Key, id)
		if err != nil || old == nil {
			return err
		}
		out.Retracted = append(out.Retracted, *old)
		fromSink = append(fromSink, *old)
		return nil
	}
	var refused int64
	var check []*schemas.Tweet // new versions whose row key an earlier run may hold
	keep := func(ts []schemas.Tweet, counted bool) ([]schemas.Tweet, error) {
		var dst []schemas.Tweet
		for i := range ts {
			t := &ts[i]
			r, ok := stored[t.ID]
			if ok && r.Deleted {
				if counted {
					refused++
				}
				if x.Ack {
					out.Acks = append(out.Acks, schemas.Ack{Source: t.Origin.Source, Offset: t.Origin.Line, Done: 1})
				}
				continue
			}
			if ok && counted && r.Key == t.RowKey && !x.fromBundle(t.ID) {
				// Stored by an earlier run: this run's count of the
				// minute is not the minute's whole count.
				out.Recount = append(out.Recount, t.CreatedAt)
			}
			if err := retract(t.ID, t.RowKey); err != nil {
				return dst, err
			}
			if !x.Fresh && (!ok || r.Key != t.RowKey) {
				check = append(check, t)
			}
			stored[t.ID] = schemas.IdentityRow{ID: t.ID, Key: t.RowKey}
			x.bundle[t.ID] = stored[t.ID]
			x.tweets[t.ID] = *t
			dst = append(dst, *t)
		}
		return dst, nil
	}
	if out.Tweets, err = keep(b.Tweets, true); err != nil {
		return b, err
	}
	if out.Replacements, err = keep(b.Replacements, false); err != nil {
		return b, err
	}
	out.Deletes = nil
	for _, id := range b.Deletes {
		if r, ok := stored[id]; ok && r.Deleted {
			continue // deleted already: the tombstone is there
		}
		if err := retract(id, schemas.RowKey{}); err != nil {
			return b, err
		}
		stored[id] = schemas.IdentityRow{ID: id, Deleted: true}
		x.bundle[id] = stored[id]
		delete(x.tweets, id)
		out.Deletes = append(out.Deletes, id)
	}
	if err := x.collisions(ctx, &out, check); err != nil {
		return b, err
	}
	if err := x.markCounted(ctx, &out); err != nil {
		return b, err
	}
	if refused > 0 {
		indexedCount.Inc(ctx, -refused)
		flow.AddIndexed(-refused)
		countSkippedDeleted(ctx, refused)
	}
	if n := len(out.Retracted) - len(b.Retracted); n > 0 {
		retractedCount.Inc(ctx, int64(n))
		if err := x.keepShared(ctx, &out, len(b.Retracted)); err != nil {
			return b, err
		}
	}
	if err := x.retractDurably(ctx, fromSink, out.Retracted, out.Kept); err != nil {
		return b, err
	}
	return out, nil
}

// retractDurably removes from the sink the versions retracted that it
// holds (versions, of all those retracted), when Identifier.Write is set,
// in up to three writes, each durable before the next:
//
//  1. every cell of the retraction but the raw ones: the term and geo
//     cells deleted (or written again from the tweets that stay under the
//     row key, kept), and the marks of the minutes to recount;
//  2. the raw cells deleted;
//  3. the collision records (schemas.CollisionName) of the row keys that
//     held two tweets or more and hold one or none now (uncollided).
//
// A collision record makes a count read its row key's tweets; it goes
// only once the raw cells it stands for are gone, so a crash anywhere
// leaves, at worst, a record for a row key of one tweet: one read more,
// never a wrong count.
//
// The identity cells (a tombstone, or the row key of the new version) are
// written after, by the sink with the rest of the batch (or by forget).
// The identity row is what makes a run look for a stored version, and
// the raw row what it reads the version's cells from; so a crash before
// (2) is durable leaves both, and running again retracts the version
// again (the deletes are idempotent); a crash after (2) leaves nothing of
// the version but, at most, its identity row, which a run again replaces
// with the tombstone or the new row key. Versions this bundle let through
// and retracts at once are not written yet: the tables' transforms delete
// them after their cells, in the same writes.
func (x *Identifier) retractDurably(ctx context.Context, versions, retracted, kept []schemas.Tweet) error {
	if x.Write == nil || len(versions) == 0 {
		return nil
	}
	// The tweets that stay and are stored already: a cell shared with one
	// this bundle let through is written by the sink with that tweet's cells.
	var stored []schemas.Tweet
	for _, t := range kept {
		if b, ok := x.tweets[t.ID]; !ok || b.RowKey != t.RowKey {
			stored = append(stored, t)
		}
	}
	b := TweetBatch{Retracted: versions, Kept: stored}
	var first, raw []schemas.Cell
	collect := func(cells []schemas.Cell) {
		for _, c := range cells {
			switch c.Table {
			case schemas.TableRaw:
				raw = append(raw, c)
			case schemas.TableIdentity: // none: b deletes no id
			default:
				first = append(first, c)
			}
		}
	}
	collect(DeriveBatch(nil, &b))
	(&RawFn{}).ProcessElement(b, collect)
	if err := x.Write(ctx, first); err != nil {
		return fmt.Errorf("identify: deleting the term and geo rows of retracted versions: %w", err)
	}
	if err := x.Write(ctx, raw); err != nil {
		return fmt.Errorf("identify: deleting the raw rows of retracted versions: %w", err)
	}
	if keys := uncollided(versions, retracted, kept); len(keys) > 0 {
		if err := x.Write(ctx, CollisionDeletes(nil, keys)); err != nil {
			return fmt.Errorf("identify: deleting collision records: %w", err)
		}
	}
	return nil
}

// uncollided returns the row keys of versions (retracted, read from the
// sink) that held more than one tweet and hold one at most once they
// go, by the tweets that stay under them (kept; see keepShared): their
// collision records are stale. A row key one of whose versions retracted
// this bundle let through (not written yet, of retracted but not of
// versions) is left alone: its record may be on its way too.
func uncollided(versions, retracted, kept []schemas.Tweet) []schemas.RowKey {
	type version struct {
		id uint64
		k  schemas.RowKey
	}
	stored := map[version]bool{}
	goes := map[schemas.RowKey]int{} // stored versions retracted, by row key
	for _, t := range versions {
		if v := (version{t.ID, t.RowKey}); !stored[v] {
			stored[v] = true
			goes[t.RowKey]++
		}
	}
	for _, t := range retracted {
		if _, ok := goes[t.RowKey]; ok && !stored[version{t.ID, t.RowKey}] {
			goes[t.RowKey] = -1 << 30 // a version of this bundle: not now
		}
	}
	stays := map[schemas.RowKey]int{}
	for _, t := range kept {
		stays[t.RowKey]++
	}
	var keys []schemas.RowKey
	for _, t := range versions {
		k := t.RowKey
		if n := goes[k]; n > 0 && stays[k] <= 1 && n+stays[k] >= 2 {
			keys = append(keys, k)
			goes[k] = 0 // once
		}
	}
	return keys
}

// countedReads is how many minutes markCounted reads at once: on
// Cassandra each is a round trip.
const countedReads = 32

// markCounted marks for recount (out.Recount) the minute of each new
// tweet of out whose minute the frequency table counted already, on a
// sink that is not fresh: frequency counts are absolute and a run counts
// only the tweets it reads, so its count of a minute an earlier run
// counted would overwrite that run's count with its own (two runs of one
// new tweet each in one minute would leave 1). The recount at the end of
// the run counts the minute from the raw table instead, which holds the
// tweets of both runs: absolute, and the same however often it is done.
// One read per distinct minute, cached in x (counted); a minute out.Recount
// marks already (a tweet an earlier run stored) is not marked again.
func (x *Identifier) markCounted(ctx context.Context, out *TweetBatch) error {
	if x.Fresh || len(out.Tweets) == 0 {
		return nil
	}
	if x.counted == nil {
		x.counted = map[string]bool{}
	}
	marked := map[string]bool{}
	for _, sec := range out.Recount {
		marked[schemas.Minute(sec)] = true
	}
	var ask []string
	for i := range out.Tweets {
		m := schemas.Minute(out.Tweets[i].CreatedAt)
		if _, ok := x.counted[m]; !ok && !marked[m] && !slices.Contains(ask, m) {
			ask = append(ask, m)
		}
	}
	if len(ask) > 0 {
		found := make([]bool, len(ask))
		errs := make([]error, len(ask))
		sem := make(chan struct{}, countedReads)
		var wg sync.WaitGroup
		for i, m := range ask {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				found[i], errs[i] = x.Sink.Counted(ctx, m)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("identify: reading the frequency table: %w", err)
		}
		for i, m := range ask {
			x.counted[m] = found[i]
		}
	}
	for i := range out.Tweets {
		t := &out.Tweets[i]
		if m := schemas.Minute(t.CreatedAt); x.counted[m] && !marked[m] {
			out.Recount = append(out.Recount, t.CreatedAt)
			marked[m] = true
		}
	}
	return nil
}

// collisions adds to out.Collided the row key of each tweet of ts that
// the sink holds another tweet under (a row-key collision with a tweet an
// earlier run stored). Dedup finds the collisions among a run's own
// tweets; this finds those across runs, for the new versions of a sink
// that is not fresh, in one Identities.Collide a batch.
func (x *Identifier) collisions(ctx context.Context, out *TweetBatch, ts []*schemas.Tweet) error {
	if len(ts) == 0 {
		return nil
	}
	rows := make([]schemas.IdentityRow, len(ts))
	for i, t := range ts {
		rows[i] = schemas.IdentityRow{ID: t.ID, Key: t.RowKey}
	}
	found, err := x.Sink.Collide(ctx, rows)
	if err != nil {
		return fmt.Errorf("identify: reading row keys for collisions: %w", err)
	}
	for i, t := range ts {
		if found[i] {
			out.Collided = append(out.Collided, t.RowKey)
		}
	}
	return nil
}

// keepShared adds to out.Kept the tweets that share a row key with a
// version out retracts (from index from on) and stay: a row-key collision
// puts two tweets under one row key, and the term and geo cells they
// share are keyed by the row key, so the cells of the version retracted
// are deleted only where the tweets that stay do not need them. The
// tweets that stay are those the sink holds under the row key, and those
// this bundle let through with it, less the versions retracted and the
// tweets deleted.
func (x *Identifier) keepShared(ctx context.Context, out *TweetBatch, from int) error {
	type version struct {
		id uint64
		k  schemas.RowKey
	}
	gone := map[version]bool{}
	for _, t := range out.Retracted {
		gone[version{t.ID, t.RowKey}] = true
	}
	deleted := map[uint64]bool{}
	for _, id := range out.Deletes {
		deleted[id] = true
	}
	stays := func(id uint64, k schemas.RowKey) bool { return !deleted[id] && !gone[version{id, k}] }
	seen := map[schemas.RowKey]bool{}
	for _, r := range out.Retracted[from:] {
		k := r.RowKey
		if seen[k] {
			continue
		}
		seen[k] = true
		have := map[uint64]bool{}
		for _, t := range x.tweets {
			if t.RowKey == k && stays(t.ID, k) {
				out.Kept = append(out.Kept, t)
				have[t.ID] = true
			}
		}
		err := x.Sink.RowTweets(ctx, k, func(id uint64, data []byte) error {
			if have[id] || !stays(id, k) {
				return nil
			}
			data = bytes.Clone(data) // the tweet's JSON, kept: the sink's scan owns data
			var dec schemas.Decoded
			x.dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: data}, &dec)
			if len(dec.Tweets) != 1 {
				return fmt.Errorf("identify: stored tweet %d (row %s) does not decode to one tweet", id, k)
			}
			t := dec.Tweets[0]
			t.RowKey = k
			out.Kept = append(out.Kept, t)
			return nil
		})
		if err != nil {
			return fmt.Errorf("identify: %w", err)
		}
	}
	// A tweet kept whose location a scrub_geo took gives no geo cell its
	// point back: the shared cell goes with the version retracted.
	for i := range out.Kept {
		t := &out.Kept[i]
		if !t.HasPoint {
			continue
		}
		scrubbed, err := GeoScrubbed(ctx, x.Sink, t)
		if err != nil {
			return fmt.Errorf("identify: %w", err)
		}
		if scrubbed {
			t.HasPoint = false
		}
	}
	return nil
}

// readVersion reads back the stored version of tweet id under row key k
// (nil if the sink does not hold it).
func readVersion(ctx context.Context, sink Identities, dec *schemas.Decoder, k schemas.RowKey, id uint64) (*schemas.Tweet, error) {
	data, ok, err := sink.RawJSON(ctx, k, id)
	if err != nil || !ok {
		return nil, err
	}
	var out schemas.Decoded
	dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: data}, &out)
	if len(out.Tweets) != 1 {
		return nil, fmt.Errorf("identify: stored tweet %d (row %s) does not decode to one tweet", id, k)
	}
	t := out.Tweets[0]
	t.RowKey = k
	return &t, nil
}
