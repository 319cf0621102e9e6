package transforms

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func init() {
	register.DoFn4x0[context.Context, []schemas.Record, func(beam.EventTime, int64, TweetBatch), func([]schemas.Cell)](&ParseFn{})
	register.Emitter3[beam.EventTime, int64, TweetBatch]()
	register.Emitter1[[]schemas.Cell]()
	beam.RegisterType(reflectTypeOf[TweetBatch]())
}

// DefaultShards is the number of keys deduplication spreads tweets over:
// the parallelism of the dedup stage.
const DefaultShards = 16

// TweetBatch is a batch of tweets. Before deduplication every tweet of a
// batch has the same dedup key (DedupKey).
type TweetBatch struct {
	// Tweets are tweets to store and count.
	Tweets []schemas.Tweet
	// Replacements are new versions of tweets this run has already counted
	// (Dedup's version rule): stored in place of the earlier version, not
	// counted again.
	Replacements []schemas.Tweet
	// Deletes are ids of tweets that compliance messages delete: their
	// stored rows are removed and a tombstone keeps them from coming back.
	Deletes []uint64
	// Retracted are stored versions to remove, read back from the sink by
	// Identify: versions replaced by Tweets or Replacements, and tweets
	// that Deletes delete.
	Retracted []schemas.Tweet
	// Recount holds the created_at (Unix seconds) of Tweets that an
	// earlier run stored already: their minutes are recounted from the raw
	// table after the run (schemas.RecountPrefix), since this run's count of such
	// a minute need not be its whole count.
	Recount []int64
	// Kept are tweets that share a row key with a version in Retracted
	// and stay (a row-key collision): the term and geo cells of Retracted
	// that they need too are not deleted. Identify fills it; it is never
	// written itself.
	Kept []schemas.Tweet
	// Collided are row keys found to hold more than one tweet (a
	// row-key collision): by Dedup among the tweets of a run, by Identify
	// against the tweets a sink already holds. RawFn records each
	// (schemas.CollisionName), for the counts of the query engine.
	Collided []schemas.RowKey
	// Probes, on the way into deduplication, are the row keys of tweets
	// keyed elsewhere: a tweet is deduplicated under its id's key
	// (IDKey), and when its id does not hold its created_at second (it
	// holds another time, or none), a probe of its id and row key goes to
	// the key of that second, where the tweets that share its row key
	// are, so that a row-key collision with them is found (Collided) and
	// counted.
	Probes []schemas.IdentityRow
	// Acks are units of work done for Kafka records (schemas.Ack, Done
	// only), to be acknowledged once the batch's cells are written: the
	// units of the tweets a stage dropped (duplicates, deleted tweets) and
	// of deletes. Set only when the run acknowledges records (ParseFn.Ack).
	Acks []schemas.Ack

	// handle, when not 0, is the batch's handle for crossing the shuffle
	// by reference (ShareBatchesInProcess): ParseFn gives one to each
	// batch it emits while a run shares, and the decoder takes it off.
	handle uint64
}

// stored calls fn for each tweet of the batch to store: Tweets, then
// Replacements.
func (b *TweetBatch) stored(fn func(t *schemas.Tweet)) {
	for i := range b.Tweets {
		fn(&b.Tweets[i])
	}
	for i := range b.Replacements {
		fn(&b.Replacements[i])
	}
}

// ParseFn decodes batches of source records into tweets and dead letters.
//
// Tweets and deletes leave keyed by IDKey (the day of the time in the id,
// and the dedup shard of its second) and stamped with the start of that
// day, so that all copies, versions and deletes of a tweet meet under one
// key, whatever their created_at; so do the tweets that share a row key,
// whose ids carry their created_at (every tweet Twitter made since 2010).
// Records that cannot be indexed leave as dead-letter cells.
type ParseFn struct {
	// Shards is the number of dedup keys (DefaultShards if 0).
	Shards int
	// From and To, when non-zero, restrict the run to tweets created in
	// [From, To), in Unix seconds (backfills). Tweets outside are counted
	// as skipped and out_of_range and go no further.
	From, To int64
	// Ack acknowledges Kafka records (schemas.Ack): for each record, an
	// expectation of the units of work it needs rides with the dead-letter
	// cells (emitted for every batch, with the record's dead letters and
	// notices, which it needs no further unit for), and the units of its
	// deletes ride with the tweet batches (TweetBatch.Acks). The tables'
	// transforms acknowledge the rest (RawFn.Ack, DerivedFn.Ack).
	Ack bool

	dec     schemas.Decoder
	out     schemas.Decoded
	groups  map[int64]*TweetBatch
	pending []int64
	seen    seenExtent
}

// note adds the created_at of the tweets decoded from a record of source,
// f.out.Tweets[from:], within [From, To), to the extent of the batch.
func (f *ParseFn) note(ctx context.Context, source string, from int) {
	for i := from; i < len(f.out.Tweets); i++ {
		if sec := f.out.Tweets[i].CreatedAt; InRange(sec, f.From, f.To) {
			f.seen.add(ctx, source, sec)
		}
	}
}

// seenExtent gathers the event time of the tweets of a batch of records,
// source by source (records of one source come together), for
// flow.NoteSeen: what a run without a range covered.
type seenExtent struct {
	source string
	lo, hi int64
	any    bool
}

func (s *seenExtent) reset() { *s = seenExtent{} }

func (s *seenExtent) add(ctx context.Context, source string, sec int64) {
	if s.any && source != s.source {
		s.flush(ctx)
	}
	if !s.any {
		s.source, s.lo, s.hi, s.any = source, sec, sec, true
		return
	}
	s.lo, s.hi = min(s.lo, sec), max(s.hi, sec)
}

func (s *seenExtent) flush(ctx context.Context) {
	if s.any {
		flow.NoteSeen(ctx, s.source, s.lo, s.hi)
	}
	s.reset()
}

// Setup prepares the decoder.
func (f *ParseFn) Setup() {
	if f.Shards <= 0 {
		f.Shards = DefaultShards
	}
	f.groups = make(map[int64]*TweetBatch)
}

// ProcessElement decodes one batch of records.
func (f *ParseFn) ProcessElement(ctx context.Context, recs []schemas.Record, emitTweets func(beam.EventTime, int64, TweetBatch), emitDead func([]schemas.Cell)) {
	f.out.Reset()
	var expect []schemas.Ack
	var deleteAcks []schemas.Ack
	f.seen.reset()
	for _, rec := range recs {
		if !f.Ack {
			nt := len(f.out.Tweets)
			f.dec.Decode(rec, &f.out)
			f.note(ctx, rec.Origin.Source, nt)
			continue
		}
		if rec.Gap {
			// Offsets without a message: acknowledged, counted nowhere.
			expect = append(expect, schemas.Ack{Source: rec.Origin.Source, Offset: rec.Origin.Line,
				Expect: true, From: rec.From, Start: rec.Start})
			continue
		}
		nt, nd := len(f.out.Tweets), len(f.out.Deletes)
		f.dec.Decode(rec, &f.out)
		f.note(ctx, rec.Origin.Source, nt)
		var units int32
		for i := nt; i < len(f.out.Tweets); i++ {
			// Acknowledged by the record's offset, whatever line of a
			// document or message the tweet came from.
			f.out.Tweets[i].Origin = rec.Origin
			if InRange(f.out.Tweets[i].CreatedAt, f.From, f.To) {
				units += schemas.UnitsPerTweet
			}
		}
		for range f.out.Deletes[nd:] {
			units += schemas.UnitsPerTweet
			deleteAcks = append(deleteAcks, schemas.Ack{Source: rec.Origin.Source, Offset: rec.Origin.Line, Done: 1})
		}
		if n := len(expect); rec.Part > 1 && n > 0 && expect[n-1].Source == rec.Origin.Source && expect[n-1].Offset == rec.Origin.Line {
			// Another record of the message before it (Record.Part): one
			// expectation for the message, of the units of all of them.
			expect[n-1].Units += units
			continue
		}
		expect = append(expect, schemas.Ack{Source: rec.Origin.Source, Offset: rec.Origin.Line,
			Expect: true, Units: units, From: rec.From, Start: rec.Start})
	}
	f.seen.flush(ctx)
	read := int64(len(f.out.Tweets) + f.out.Controls + len(f.out.Rejects))
	readCount.Inc(ctx, read)
	flow.AddRead(read)
	if f.From != 0 || f.To != 0 {
		if n := f.dropOutOfRange(); n > 0 {
			outOfRangeCount.Inc(ctx, n)
			f.out.Controls += int(n)
		}
	}
	if f.out.Controls > 0 {
		skippedCount.Inc(ctx, int64(f.out.Controls))
		for k, n := range f.out.Skipped {
			if n > 0 {
				skippedByKind[k].Inc(ctx, int64(n))
			}
		}
	}
	var dead []schemas.Cell
	if len(f.out.Rejects) > 0 {
		deadLetterCount.Inc(ctx, int64(len(f.out.Rejects)))
		dead = DeadLetterCells(dead, f.out.Rejects)
	}
	if len(f.out.Notices) > 0 {
		noticeCount.Inc(ctx, int64(len(f.out.Notices)))
		dead = NoticeCells(dead, f.out.Notices)
	}
	// The expectations after the cells they stand for: one batch, written
	// before they are acknowledged.
	for _, a := range expect {
		dead = append(dead, a.Cell())
	}
	if len(dead) > 0 {
		emitDead(dead)
	}
	if len(f.out.Tweets) == 0 && len(f.out.Deletes) == 0 {
		return
	}
	// Group by dedup key, the id's (IDKey): every copy, version and
	// delete of an id meets under it, whatever its created_at. The batch
	// owns its tweets: f.out is reused.
	f.pending = f.pending[:0]
	for i := range f.out.Tweets {
		t := f.out.Tweets[i]
		t.RowKey = t.Key()
		k := IDKey(t.ID, f.Shards)
		f.group(k).Tweets = append(f.group(k).Tweets, t)
		if !IDTimeIsCreatedAt(&t) {
			ck := DedupKey(BucketOf(t.CreatedAt), ShardOfSecond(t.CreatedAt, f.Shards))
			f.group(ck).Probes = append(f.group(ck).Probes, schemas.IdentityRow{ID: t.ID, Key: t.RowKey})
		}
	}
	for i, id := range f.out.Deletes {
		k := IDKey(id, f.Shards)
		g := f.group(k)
		g.Deletes = append(g.Deletes, id)
		if deleteAcks != nil {
			g.Acks = append(g.Acks, deleteAcks[i])
		}
	}
	for _, k := range f.pending {
		b := f.groups[k]
		delete(f.groups, k)
		flow.AddBacklog(len(b.Tweets))
		shareBatch(b)
		emitTweets(mtime.FromMilliseconds(dedupBucketOf(k)*DedupBucket.Milliseconds()), k, *b)
	}
}

// group returns the batch of dedup key k being built.
func (f *ParseFn) group(k int64) *TweetBatch {
	b, ok := f.groups[k]
	if !ok {
		b = &TweetBatch{}
		f.groups[k] = b
		f.pending = append(f.pending, k)
	}
	return b
}

// dropOutOfRange removes the decoded tweets outside [From, To) and
// returns how many it removed.
func (f *ParseFn) dropOutOfRange() int64 {
	kept := f.out.Tweets[:0]
	for _, t := range f.out.Tweets {
		if InRange(t.CreatedAt, f.From, f.To) {
			kept = append(kept, t)
		}
	}
	n := int64(len(f.out.Tweets) - len(kept))
	f.out.Tweets = kept
	return n
}

// InRange reports whether sec lies in [from, to); a zero bound is open.
func InRange(sec, from, to int64) bool {
	return (from == 0 || sec >= from) && (to == 0 || sec < to)
}

// SnowflakeSecond returns the creation time, in Unix seconds, that a
// Snowflake tweet id carries ((id >> 22) + 1288834974657 ms), and false
// for ids from before Snowflake (November 2010), which carry none.
func SnowflakeSecond(id uint64) (int64, bool) {
	if id < 1<<40 { // Snowflake ids passed 2^40 within hours of their start
		return 0, false
	}
	return (int64(id>>22) + 1288834974657) / 1000, true
}

// IDKey returns the dedup key of tweet id (DedupKey), one of shards a
// day: the day and the shard of the second that the id's Snowflake time
// names, which is its tweet's created_at for every tweet Twitter made
// since November 2010. An id without a time (older, or made up) is keyed
// by its shard alone, under day 0. Every record of an id, whatever its
// created_at (a version rewritten, an archive whose times were changed),
// and its deletes, which know only the id, come under this one key, whose
// bundles a runner processes one at a time: what one of them did, the
// next one sees (DedupFn's state, the sink's identity table).
func IDKey(id uint64, shards int) int64 {
	if sec, ok := SnowflakeSecond(id); ok {
		return DedupKey(BucketOf(sec), ShardOfSecond(sec, shards))
	}
	return DedupKey(0, ShardOf(id, shards))
}

// IDTimeIsCreatedAt reports whether the Snowflake time of t's id is its
// created_at second: false for an id without a time, and for a tweet
// whose created_at was changed.
func IDTimeIsCreatedAt(t *schemas.Tweet) bool {
	sec, ok := SnowflakeSecond(t.ID)
	return ok && sec == t.CreatedAt
}

// ShardOf maps a tweet id to one of n dedup shards. Snowflake ids carry a
// sequence in their low bits, so the id is mixed before the modulus.
func ShardOf(id uint64, n int) int {
	return int((id * 0x9E3779B97F4A7C15 >> 32) % uint64(n))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
