package transforms

import (
	"slices"

	"github.com/tweetindex/tweetindex/schemas"
)

// The per-day term counts (schemas.TermDayRow) are counts of many tweets,
// as the frequency table's, so no tweet's cells make them: the term
// index's step marks the days of the tweets it stores (TermDayMarkers),
// and the days are recounted from the stored tweets once the run's
// pipeline is done (pipelines/maintain, with TermDayCounter), as marked
// minutes are.

// TermDayMarkers is the term index's marks (DerivedTable.Marks): the
// mark of each day of the stored tweets' term cells (schemas.TermDayMark),
// once, so that the day's term counts are recounted at the end of the run.
// Marks are metadata rows, written with the term rows by the graph's step
// and never deleted with a tweet; the recount removes them.
func TermDayMarkers(dst, cells []schemas.Cell) []schemas.Cell {
	var last uint16
	var days []uint16
	for i := range cells {
		c := &cells[i]
		if c.Table != schemas.TableTerms || c.Delete || len(c.Key) < schemas.RowKeyLen {
			continue
		}
		var k schemas.RowKey
		copy(k[:], c.Key[len(c.Key)-schemas.RowKeyLen:])
		d := schemas.Day(k.Seconds())
		if len(days) > 0 && d == last || slices.Contains(days, d) {
			continue
		}
		days, last = append(days, d), d
	}
	for _, d := range days {
		dst = append(dst, schemas.MetaRow{Name: schemas.TermDayMark(d)}.Cell())
	}
	return dst
}

// TweetTermFields calls fn once for each term of t's term index cells
// (TermCells), with its per-day field (schemas.TermDayField: hashtags and
// mentions of the text apart). scratch is reused and returned.
func TweetTermFields(scratch []Term, t *schemas.Tweet, fn func(field, term string)) []Term {
	scratch = TweetTerms(scratch[:0], t)
	for _, term := range scratch {
		fn(schemas.TermDayField(FieldText, term.Term), term.Term)
	}
	scratch = UserTerms(scratch[:0], t.UserName, t.ScreenName)
	for _, term := range scratch {
		fn(FieldUser, term.Term)
	}
	if t.Entities != nil && len(t.Entities.URLs) > 0 {
		scratch = URLTerms(scratch[:0], t.Entities.URLs)
		for _, term := range scratch {
			fn(FieldURL, term.Term)
		}
	}
	return scratch
}

// TermDayCounter counts the tweets of one day per field, term and
// language: the TermDays cells of the day.
type TermDayCounter struct {
	counts  map[termDayKey]int64
	scratch []Term
}

type termDayKey struct{ field, term, lang string }

// Add counts t's terms.
func (c *TermDayCounter) Add(t *schemas.Tweet) {
	if c.counts == nil {
		c.counts = map[termDayKey]int64{}
	}
	c.scratch = TweetTermFields(c.scratch, t, func(field, term string) {
		c.counts[termDayKey{field, term, t.Lang}]++
	})
}

// Len returns the number of cells Cells appends.
func (c *TermDayCounter) Len() int { return len(c.counts) }

// Cells appends the cells of day d to dst, and resets the counter.
func (c *TermDayCounter) Cells(dst []schemas.Cell, d uint16) []schemas.Cell {
	for k, n := range c.counts {
		dst = append(dst, schemas.TermDayRow{Day: d, Field: k.field, Term: k.term, Lang: k.lang, Tweets: n}.Cell())
	}
	clear(c.counts)
	return dst
}
