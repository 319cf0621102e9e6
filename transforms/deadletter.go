package transforms

import "github.com/tweetindex/tweetindex/schemas"

// MaxDeadLetterBytes caps the raw bytes kept with a dead letter; the origin
// points at the full input.
const MaxDeadLetterBytes = 1 << 20

// DeadLetterCells appends the dead-letter cells of rejects to dst.
func DeadLetterCells(dst []schemas.Cell, rejects []schemas.Reject) []schemas.Cell {
	for _, r := range rejects {
		raw := r.Raw
		if len(raw) > MaxDeadLetterBytes {
			raw = raw[:MaxDeadLetterBytes]
		}
		dst = append(dst, schemas.DeadLetterRow{Origin: r.Origin, Reason: r.Reason, Raw: raw}.Cell())
	}
	return dst
}
