package transforms

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x0[TweetBatch, func([]schemas.Cell)](&RawFn{})
}

// RawFn turns a batch of tweets into RawTwitterData cells ((row key,
// tweet id) -> stored JSON) and, beside each, the tweet's identity cell
// (tweet id -> row key) and its TweetAuthors cell (authors.go): the three
// are written together.
type RawFn struct {
	// MarkCounting marks the minute of each tweet stored as being
	// counted (schemas.CountingPrefix): a stream's counts live in window state
	// until they are written, and a stream that dies loses them, while
	// its Kafka offsets may already be committed past their tweets (the
	// runner held them). The run that finds such marks recounts their
	// minutes from the raw table (job.Run); a run that ends cleanly
	// has written every count and removes them.
	MarkCounting bool
	// Ack acknowledges, after the batch's cells, one unit for each tweet
	// stored and the units the batch carries (TweetBatch.Acks), as
	// DerivedFn.Ack does for the derived tables (schemas.Ack).
	Ack bool
}

// ProcessElement emits three cells per tweet stored (raw, identity and
// authors), the deletes of the raw and authors cells of each version
// retracted with a mark to recount its minute, a tombstone per id
// deleted, and the record of each row-key collision found
// (schemas.CollisionName).
func (f *RawFn) ProcessElement(b TweetBatch, emit func([]schemas.Cell)) {
	cells := make([]schemas.Cell, 0, 3*(len(b.Tweets)+len(b.Replacements))+3*len(b.Retracted)+len(b.Deletes))
	if f.MarkCounting {
		// The marks first: a sink that writes a batch in parts writes
		// them before the tweets they stand for.
		var last string
		b.stored(func(t *schemas.Tweet) {
			if m := schemas.Minute(t.CreatedAt); m != last {
				cells = append(cells, schemas.MetaRow{Name: schemas.CountingPrefix + m}.Cell())
				last = m
			}
		})
	}
	cells = RawCells(cells, b.Tweets)
	cells = RawCells(cells, b.Replacements)
	for i := range b.Retracted {
		t := &b.Retracted[i]
		cells = append(cells,
			deleteOf(schemas.RawRow{Key: t.RowKey, ID: t.ID}.Cell()),
			authorDelete(t),
			schemas.MetaRow{Name: schemas.RecountPrefix + schemas.Minute(t.CreatedAt)}.Cell())
	}
	for _, id := range b.Deletes {
		cells = append(cells, schemas.IdentityRow{ID: id, Deleted: true}.Cell())
	}
	for _, k := range b.Collided {
		cells = append(cells, schemas.MetaRow{Name: schemas.CollisionName(k)}.Cell())
	}
	var last string
	for _, sec := range b.Recount {
		if m := schemas.Minute(sec); m != last {
			cells = append(cells, schemas.MetaRow{Name: schemas.RecountPrefix + m}.Cell())
			last = m
		}
	}
	if f.Ack {
		cells = appendAcks(cells, &b)
	}
	if len(cells) > 0 {
		emit(cells)
	}
}

// appendAcks appends to cells the acknowledgements of a table's cells of
// b: a unit for each tweet stored (of each record: a record may hold
// several tweets), and the units b carries.
func appendAcks(cells []schemas.Cell, b *TweetBatch) []schemas.Cell {
	cells = schemas.AppendAckCells(cells, b.Tweets, 1)
	cells = schemas.AppendAckCells(cells, b.Replacements, 1)
	for _, a := range b.Acks {
		cells = append(cells, a.Cell())
	}
	return cells
}

// CollisionDeletes appends to dst the deletes of the collision records
// of row keys keys (those RawFn writes for TweetBatch.Collided): the
// identity stage removes the record of a row key that holds one tweet
// again, once its other tweets' raw cells are gone (Identifier,
// retractDurably).
func CollisionDeletes(dst []schemas.Cell, keys []schemas.RowKey) []schemas.Cell {
	for _, k := range keys {
		dst = append(dst, deleteOf(schemas.MetaRow{Name: schemas.CollisionName(k)}.Cell()))
	}
	return dst
}

// Recount marks (schemas.RecountPrefix): RawFn writes one for the minute
// of each stored version it removes, and the run recounts and unmarks them
// when its pipeline is done (job.Run). Counting marks
// (schemas.CountingPrefix): see RawFn.MarkCounting.

// deleteOf returns the cell that deletes c.
func deleteOf(c schemas.Cell) schemas.Cell {
	return schemas.Cell{Table: c.Table, Key: c.Key, Delete: true}
}

// RawCells appends the RawTwitterData cell, the identity cell and the
// TweetAuthors cell of each of tweets to dst.
func RawCells(dst []schemas.Cell, tweets []schemas.Tweet) []schemas.Cell {
	for i := range tweets {
		t := &tweets[i]
		dst = append(dst,
			schemas.RawRow{Key: t.RowKey, ID: t.ID, JSON: t.JSON}.Cell(),
			schemas.IdentityRow{ID: t.ID, Key: t.RowKey}.Cell(),
			AuthorCell(t))
	}
	return dst
}
