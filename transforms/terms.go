package transforms

import (
	"cmp"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x0[TweetBatch, func([]schemas.Cell)](&TermsFn{})
}

// The term index's fields (column families).
const (
	FieldText = "text" // terms of the tweet's full text
	FieldUser = "user" // terms of the author's name and screen name
)

// TermsFn turns a batch of tweets into TermIndex cells.
type TermsFn struct {
	// Ack acknowledges the batch's tweets after its cells (see RawFn.Ack).
	Ack bool

	terms []Term
}

// ProcessElement emits the cells of the batch's tweets stored, and the
// deletes of the cells of the versions it retracts.
func (f *TermsFn) ProcessElement(b TweetBatch, emit func([]schemas.Cell)) {
	cells := make([]schemas.Cell, 0, (len(b.Tweets)+len(b.Replacements))*24)
	b.stored(func(t *schemas.Tweet) {
		cells, f.terms = TermCells(cells, f.terms[:0], t)
	})
	var keep map[string]schemas.Cell // cells the tweets kept make (TweetBatch.Kept)
	if len(b.Kept) > 0 {
		keep = map[string]schemas.Cell{}
		var kc []schemas.Cell
		for _, i := range keptOrder(b.Kept) {
			kc, f.terms = TermCells(kc[:0], f.terms[:0], &b.Kept[i])
			for _, c := range kc {
				keep[string(c.Key)] = c
			}
		}
	}
	for i := range b.Retracted {
		n := len(cells)
		cells, f.terms = TermCells(cells, f.terms[:0], &b.Retracted[i])
		cells = deletesBut(cells, n, keep)
	}
	if f.Ack {
		cells = appendAcks(cells, &b)
	}
	if len(cells) > 0 {
		emit(cells)
	}
}

// deletesBut turns the cells of a retracted version, cells[n:], into
// deletes, except those whose key is in keep: a tweet that stays under the
// same row key (a collision) makes that cell too, and it is written again
// as keep has it, so that it holds the staying tweet's value (its term
// frequency, its point) rather than whichever the removed one last wrote.
// Each kept key is written once.
func deletesBut(cells []schemas.Cell, n int, keep map[string]schemas.Cell) []schemas.Cell {
	j := n
	for _, c := range cells[n:] {
		if k, ok := keep[string(c.Key)]; ok {
			if k.Key != nil {
				cells[j] = k
				j++
				keep[string(c.Key)] = schemas.Cell{} // written
			}
			continue
		}
		cells[j] = deleteOf(c)
		j++
	}
	return cells[:j]
}

// keptOrder returns the indexes of kept in the order their cells are put
// in a keep map, later ones overwriting: by id, largest first, so that a
// cell several kept tweets make holds the value of the one with the
// smallest id (docs/queries.md, "A row key holding two tweets").
func keptOrder(kept []schemas.Tweet) []int {
	idx := make([]int, len(kept))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(kept[b].ID, kept[a].ID) })
	return idx
}

// TermCells appends the TermIndex cells of t to dst, using scratch for the
// terms, and returns both for reuse.
func TermCells(dst []schemas.Cell, scratch []Term, t *schemas.Tweet) ([]schemas.Cell, []Term) {
	scratch = Tokenize(scratch[:0], t.Text)
	dst = appendTermCells(dst, scratch, FieldText, t.RowKey)
	scratch = UserTerms(scratch[:0], t.UserName, t.ScreenName)
	dst = appendTermCells(dst, scratch, FieldUser, t.RowKey)
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
