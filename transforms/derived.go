package transforms

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.DoFn2x1[TweetBatch, func([]schemas.Cell), error](&DerivedFn{})
}

// The derived tables: the tables whose cells are a function of one stored
// tweet (schemas.TableSpec.Derived), written beside its raw cell and
// deleted with it wherever a stored tweet goes (a version replaced, a
// compliance delete, forget, the rebuild of a dead stream's minutes).
// Each is described once, in derivedTables, by what makes a tweet's cells;
// everything else, the graph's step, the deletes of retracted versions,
// the cells of the tweets a row key keeps, acknowledgements, is written
// once, here, for all of them. The raw table (with the identity and
// authors tables written beside it, RawFn) and the frequency table (counts
// of many tweets) are not of them.

// A CellMaker makes a derived table's cells of tweets. One is made per
// DoFn instance (DerivedTable.New): it may keep scratch space between
// tweets, and is not safe for concurrent use.
type CellMaker interface {
	// Cells appends the table's cells of t (its RowKey set) to dst.
	Cells(dst []schemas.Cell, t *schemas.Tweet) []schemas.Cell
}

// DerivedTable describes a derived table to the code that writes it.
type DerivedTable struct {
	// Table is the table; its registry entry says it is Derived.
	Table schemas.Table
	// Step is the name of the graph's step that writes it.
	Step string
	// New returns a maker of the table's cells.
	New func() CellMaker
	// Markers, if not nil, appends to dst the table's cells that the
	// stored tweets' cells, cells, imply (the geo table's day markers:
	// schemas.GeoDayMarkers); they are written with the cells and never
	// deleted.
	Markers func(dst, cells []schemas.Cell) []schemas.Cell
	// Marks, if not nil, appends to dst the marks of work to do once the
	// run's pipeline is done that the cells the graph's step writes, cells,
	// call for (the term index's days whose term counts are recounted:
	// TermDayMarkers; the edge table's days whose edge weights are:
	// EdgeDayMarkers). Only the graph's step writes them (DerivedFn), and
	// the work removes them: they are not a tweet's cells (DeriveTweet),
	// which is what check and the rebuild of minutes make.
	Marks func(dst, cells []schemas.Cell) []schemas.Cell
}

// derivedTables lists the derived tables other than raw and authors, in
// the order a retraction deletes their cells (before the raw cell that
// leads to them: Identifier).
var derivedTables = []DerivedTable{
	{Table: schemas.TableTerms, Step: "TermIndex", New: func() CellMaker { return &termMaker{} }, Marks: TermDayMarkers},
	{Table: schemas.TableGeo, Step: "GeoTemporalIndex", New: func() CellMaker { return geoMaker{} }, Markers: schemas.GeoDayMarkers},
	{Table: schemas.TableEdges, Step: "EdgeIndex", New: func() CellMaker { return &edgeMaker{} }, Marks: EdgeDayMarkers},
}

// DerivedTables returns the derived tables that DerivedFn writes (every
// derived table but raw and authors, which RawFn writes). The caller
// must not modify it.
func DerivedTables() []DerivedTable { return derivedTables }

// derivedTable returns the derived table t's description.
func derivedTable(t schemas.Table) (DerivedTable, error) {
	for _, d := range derivedTables {
		if d.Table == t {
			return d, nil
		}
	}
	return DerivedTable{}, fmt.Errorf("transforms: table %s is not a derived table", t.Name())
}

// DerivedFn turns a batch of tweets into the cells of one derived table
// (Table): those of the tweets stored, the table's markers, and the
// deletes of the cells of the versions retracted (DeriveBatch).
type DerivedFn struct {
	// Table is the derived table written (DerivedTables).
	Table schemas.Table
	// Ack acknowledges the batch's tweets after its cells (see RawFn.Ack).
	Ack bool
	// NoMarks leaves out the table's marks (DerivedTable.Marks): the term
	// step's days, for a sink that keeps no per-day term counts; the edge
	// step's, for a sink that keeps no per-day edge weights.
	NoMarks bool

	d     DerivedTable
	maker CellMaker
}

// Setup finds the table's description.
func (f *DerivedFn) Setup() error {
	d, err := derivedTable(f.Table)
	if err != nil {
		return err
	}
	f.d, f.maker = d, d.New()
	return nil
}

// ProcessElement emits the batch's cells of the table, if any.
func (f *DerivedFn) ProcessElement(b TweetBatch, emit func([]schemas.Cell)) error {
	if f.maker == nil { // called without Setup (a direct call)
		if err := f.Setup(); err != nil {
			return err
		}
	}
	cells := deriveBatch(nil, f.d, f.maker, &b)
	if f.d.Marks != nil && !f.NoMarks {
		cells = f.d.Marks(cells, cells)
	}
	if f.Ack {
		cells = appendAcks(cells, &b)
	}
	if len(cells) > 0 {
		emit(cells)
	}
	return nil
}

// DeriveBatch appends to dst the cells of every derived table that
// DerivedFn writes for b, table after table in the order of
// DerivedTables, without acknowledgements: what a retraction outside the
// graph (Identifier, forget, the rebuild of minutes) writes.
func DeriveBatch(dst []schemas.Cell, b *TweetBatch) []schemas.Cell {
	for _, d := range derivedTables {
		dst = deriveBatch(dst, d, d.New(), b)
	}
	return dst
}

// DeriveTable appends to dst the cells of derived table t of b, as
// DerivedFn writes them, without acknowledgements.
func DeriveTable(dst []schemas.Cell, t schemas.Table, b *TweetBatch) ([]schemas.Cell, error) {
	d, err := derivedTable(t)
	if err != nil {
		return dst, err
	}
	return deriveBatch(dst, d, d.New(), b), nil
}

// DeriveTweet appends to dst the cells of every derived table that
// DerivedFn writes for t, stored, markers included.
func DeriveTweet(dst []schemas.Cell, t *schemas.Tweet) []schemas.Cell {
	return DeriveBatch(dst, &TweetBatch{Tweets: []schemas.Tweet{*t}})
}

// deriveBatch appends to dst the cells of table d of b: the cells of the
// tweets stored, the markers they imply, and the deletes of the cells of
// the versions retracted, except the cells that a tweet a row key keeps
// (TweetBatch.Kept) makes, which are written again as it makes them
// (deletesBut).
func deriveBatch(dst []schemas.Cell, d DerivedTable, m CellMaker, b *TweetBatch) []schemas.Cell {
	n := len(dst)
	b.stored(func(t *schemas.Tweet) { dst = m.Cells(dst, t) })
	if d.Markers != nil {
		dst = d.Markers(dst, dst[n:])
	}
	var keep map[string]schemas.Cell
	if len(b.Kept) > 0 {
		keep = map[string]schemas.Cell{}
		var kc []schemas.Cell
		for _, i := range keptOrder(b.Kept) {
			kc = m.Cells(kc[:0], &b.Kept[i])
			for _, c := range kc {
				keep[string(c.Key)] = c
			}
		}
	}
	for i := range b.Retracted {
		n := len(dst)
		dst = m.Cells(dst, &b.Retracted[i])
		dst = deletesBut(dst, n, keep)
	}
	return dst
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
