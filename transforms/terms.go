package transforms

import "github.com/tweetindex/tweetindex/schemas"

// The term index's fields (column families).
const (
	FieldText = "text" // terms of the tweet's full text
	FieldUser = "user" // terms of the author's name and screen name
	FieldURL  = "url"  // the hosts of the links its entities name (URLTerms)
)

// termMaker makes TermIndex cells (DerivedTables), its scratch space
// reused from tweet to tweet.
type termMaker struct{ s termScratch }

func (m *termMaker) Cells(dst []schemas.Cell, t *schemas.Tweet) []schemas.Cell {
	dst, m.s = termCells(dst, m.s, t)
	return dst
}

// termScratch is the space TermCells reuses: the terms of a field, and the
// text terms' positions (at, by term: pos[start[i]:end[i]]).
type termScratch struct {
	terms      []Term
	at         []TermAt
	start, end []int
	pos        []uint32
}

// TermCells appends the TermIndex cells of t to dst, using scratch for the
// terms, and returns both for reuse. Text rows record the term's
// positions (schemas.TermRow.Positions).
func TermCells(dst []schemas.Cell, scratch []Term, t *schemas.Tweet) ([]schemas.Cell, []Term) {
	dst, s := termCells(dst, termScratch{terms: scratch}, t)
	return dst, s.terms
}

func termCells(dst []schemas.Cell, s termScratch, t *schemas.Tweet) ([]schemas.Cell, termScratch) {
	s.terms, s.at = TweetTermsAt(s.terms[:0], s.at[:0], t)
	s.byTerm()
	dst = appendTermCells(dst, s.terms, FieldText, t.RowKey, &s)
	s.terms = UserTerms(s.terms[:0], t.UserName, t.ScreenName)
	dst = appendTermCells(dst, s.terms, FieldUser, t.RowKey, nil)
	if t.Entities != nil && len(t.Entities.URLs) > 0 {
		s.terms = URLTerms(s.terms[:0], t.Entities.URLs)
		dst = appendTermCells(dst, s.terms, FieldURL, t.RowKey, nil)
	}
	return dst, s
}

// byTerm sorts the positions of s.at by term (a counting sort, which
// keeps each term's in the text's order), each term's once.
func (s *termScratch) byTerm() {
	n := len(s.terms)
	s.start, s.end = grow(s.start[:0], n), grow(s.end[:0], n)
	for _, a := range s.at {
		s.end[a.Term]++
	}
	off := 0
	for i := range n {
		s.start[i], off = off, off+s.end[i]
		s.end[i] = s.start[i]
	}
	s.pos = grow(s.pos[:0], len(s.at))
	for _, a := range s.at {
		p, e := uint32(a.Pos), s.end[a.Term]
		if e > s.start[a.Term] && s.pos[e-1] == p {
			continue // the term twice in one word (a tag's parts)
		}
		s.pos[e] = p
		s.end[a.Term]++
	}
}

// grow returns s (empty) extended to n zero elements.
func grow[T any](s []T, n int) []T {
	s = append(s[:0], make([]T, n)...)
	return s
}

// appendTermCells appends the cells of terms of a field of the tweet at
// key to dst, their keys and values in one allocation; with positions
// (the text's), each row records its term's.
func appendTermCells(dst []schemas.Cell, terms []Term, field string, key schemas.RowKey, positions *termScratch) []schemas.Cell {
	row := func(i int) schemas.TermRow {
		r := schemas.TermRow{Term: terms[i].Term, Field: field, Key: key, Freq: terms[i].Freq}
		if positions != nil {
			r.Positions, r.Positioned = positions.pos[positions.start[i]:positions.end[i]], true
		}
		return r
	}
	size := 0
	for i := range terms {
		size += row(i).CellBytes()
	}
	buf := make([]byte, 0, size)
	for i := range terms {
		var c schemas.Cell
		c, buf = row(i).AppendCell(buf)
		dst = append(dst, c)
	}
	return dst
}
