package transforms

import "github.com/tweetindex/tweetindex/schemas"

// MaxDeadLetterBytes caps the raw bytes kept with a dead letter; the origin
// points at the full input.
const MaxDeadLetterBytes = 1 << 20

// DeadLetterCells appends the dead-letter cells of rejects to dst. The
// rejects of one line (the bad elements of a v2 page or of a one-line
// array) are numbered 0, 1, ... in input order (schemas.DeadLetterRow.Item),
// so that each has its own row. rejects must hold every reject of the
// records they come from (as the decoder gives them for a batch), so that
// the numbers are the same on every run.
func DeadLetterCells(dst []schemas.Cell, rejects []schemas.Reject) []schemas.Cell {
	var seen map[schemas.Origin]uint32
	for i, r := range rejects {
		raw := r.Raw
		if len(raw) > MaxDeadLetterBytes {
			raw = raw[:MaxDeadLetterBytes]
		}
		var item uint32
		if i > 0 {
			if seen == nil {
				seen = make(map[schemas.Origin]uint32, len(rejects))
				seen[rejects[0].Origin] = 1
			}
			item = seen[r.Origin]
			seen[r.Origin] = item + 1
		}
		dst = append(dst, schemas.DeadLetterRow{Origin: r.Origin, Item: item, Reason: r.Reason, Raw: raw}.Cell())
	}
	return dst
}
