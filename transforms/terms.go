package transforms

import "github.com/tweetindex/tweetindex/schemas"

// The term index's fields (column families).
const (
	FieldText = "text" // terms of the tweet's full text
	FieldUser = "user" // terms of the author's name and screen name
	FieldURL  = "url"  // the hosts of the links its entities name (URLTerms)
)

// termMaker makes TermIndex cells (DerivedTables), its terms' slice
// reused from tweet to tweet.
type termMaker struct{ terms []Term }

func (m *termMaker) Cells(dst []schemas.Cell, t *schemas.Tweet) []schemas.Cell {
	dst, m.terms = TermCells(dst, m.terms, t)
	return dst
}

// TermCells appends the TermIndex cells of t to dst, using scratch for the
// terms, and returns both for reuse.
func TermCells(dst []schemas.Cell, scratch []Term, t *schemas.Tweet) ([]schemas.Cell, []Term) {
	scratch = TweetTerms(scratch[:0], t)
	dst = appendTermCells(dst, scratch, FieldText, t.RowKey)
	scratch = UserTerms(scratch[:0], t.UserName, t.ScreenName)
	dst = appendTermCells(dst, scratch, FieldUser, t.RowKey)
	if t.Entities != nil && len(t.Entities.URLs) > 0 {
		scratch = URLTerms(scratch[:0], t.Entities.URLs)
		dst = appendTermCells(dst, scratch, FieldURL, t.RowKey)
	}
	return dst, scratch
}

// appendTermCells appends the cells of terms of a field of the tweet at
// key to dst, their keys and values in one allocation.
func appendTermCells(dst []schemas.Cell, terms []Term, field string, key schemas.RowKey) []schemas.Cell {
	size := 0
	for _, term := range terms {
		size += schemas.TermRow{Term: term.Term, Field: field}.CellBytes()
	}
	buf := make([]byte, 0, size)
	for _, term := range terms {
		var c schemas.Cell
		c, buf = schemas.TermRow{Term: term.Term, Field: field, Key: key, Freq: term.Freq}.AppendCell(buf)
		dst = append(dst, c)
	}
	return dst
}
