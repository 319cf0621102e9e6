package kafkaio

import (
	"context"
	"fmt"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/schemas"
)

// appendMessage appends to recs the records of one message, msg (its
// value in msg.Data): the message as it is, as a rule (a tweet a
// message), or, when it holds several records as a file would (JSON
// lines, a payload compressed as a whole, a v2 page over several lines:
// archiveio.SplitMessage), each of them, with the message's origin and
// range of offsets and its line in the message (schemas.Record.Part), so
// that they are acknowledged as the message and their dead letters name
// partition, offset and line. A message's records are never split
// between two batches (the reader flushes between messages), so the
// parse stage sees all of them at once.
func appendMessage(ctx context.Context, recs []schemas.Record, msg schemas.Record) ([]schemas.Record, error) {
	first := len(recs)
	archive := false
	split, err := archiveio.SplitMessage(ctx, "", msg.Data, archiveio.Options{}, func(r schemas.Record) error {
		part := msg
		part.Data, part.Fault, part.Part = r.Data, r.Fault, max(r.Origin.Line, 1)
		archive = archive || r.Origin.Source != ""
		recs = append(recs, part)
		return nil
	})
	switch {
	case err != nil:
		return recs[:first], fmt.Errorf("kafkaio: %s: reading the records of the message at offset %d: %w", msg.Origin.Source, msg.Origin.Line, err)
	case !split:
		return append(recs, msg), nil
	case len(recs) == first:
		// Nothing in it (a compressed empty stream): one record still
		// stands for the message, an empty one, counted as a control.
		msg.Data, msg.Part = nil, 1
		return append(recs, msg), nil
	}
	if archive {
		// The members of an archive each number their lines from 1: the
		// records are numbered in order instead.
		for i := first; i < len(recs); i++ {
			recs[i].Part = int64(i - first + 1)
		}
	}
	return recs, nil
}
