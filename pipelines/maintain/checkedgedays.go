package maintain

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// Check holds the per-day edge weights (schemas.EdgeDayRow) to the edge
// cells: each weight must be the number of its edge's cells on its day,
// as a recount writes it (edgedays.go), the edge cells being those the
// stored tweets call for. It reads the edge cells of every kind and day
// that the edge table or the weights hold once more, a day at a time
// (memory: one day's distinct edges), after the repair of the edge cells
// when it repairs; when it only reports, the edge cells it found missing
// or of no stored tweet count as the repair would leave them. A day marked
// for a recount (a stream writing it, a run that died before its end) is
// left to the recount, whose weights it is waiting for.

// edgeDay is one kind and day of edges.
type edgeDay struct {
	t schemas.EdgeType
	d uint16
}

// edgeDayCheck gathers, while Check reads the other tables, what holding
// the edge weights to the edge cells needs.
type edgeDayCheck struct {
	days map[edgeDay]bool
	// adjust is, by edge weight key, the edge cells a repair writes (+1)
	// and deletes (-1).
	adjust map[string]int64
}

func newEdgeDayCheck() *edgeDayCheck {
	return &edgeDayCheck{days: map[edgeDay]bool{}, adjust: map[string]int64{}}
}

// edgeCell notes the kind and day of an edge cell read.
func (c *edgeDayCheck) edgeCell(key []byte) {
	if len(key) >= schemas.EdgePrefixLen {
		c.days[edgeDay{schemas.EdgeType(key[0]), binary.BigEndian.Uint16(key[1:schemas.EdgePrefixLen])}] = true
	}
}

// repair notes an edge cell that a repair writes or deletes (any other
// cell is ignored).
func (c *edgeDayCheck) repair(cell schemas.Cell) {
	if cell.Table != schemas.TableEdges {
		return
	}
	k, ok := schemas.EdgeDayKeyOf(cell.Key)
	if !ok {
		return
	}
	c.edgeCell(cell.Key)
	if cell.Delete {
		c.adjust[string(k)]--
	} else {
		c.adjust[string(k)]++
	}
}

// check compares the edge weights of r with the recount of its edge cells,
// adjusted by the repairs noted if adjust is set (the repair was not
// written), and calls problem for each weight missing, wrong or of an edge
// without cells, with the cell that repairs it. It returns the weights
// read.
func (c *edgeDayCheck) check(ctx context.Context, r sink.Reader, adjust bool, problem func(kind string, fixed schemas.Cell, format string, args ...any) error) (int64, error) {
	var rows int64
	err := r.ScanAll(ctx, schemas.TableEdgeDays, func(key, _ []byte) error {
		rows++
		c.edgeCell(key)
		return nil
	})
	if err != nil {
		return rows, fmt.Errorf("check: reading edgedays: %w", err)
	}
	days := slices.SortedFunc(maps.Keys(c.days), func(a, b edgeDay) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
	for _, ed := range days {
		if _, marked, err := r.Lookup(ctx, schemas.TableMeta, []byte(schemas.EdgeDayMark(ed.d))); err != nil {
			return rows, fmt.Errorf("check: reading %s: %w", schemas.EdgeDayMark(ed.d), err)
		} else if marked {
			continue
		}
		want, err := countEdgeDay(ctx, r, ed.t, ed.d)
		if err != nil {
			return rows, fmt.Errorf("check: reading the edges of %s %s: %w", ed.t.Name(), dayName(ed.d), err)
		}
		if adjust {
			prefix := string(schemas.EdgePrefix(ed.t, ed.d))
			for k, n := range c.adjust {
				if len(k) > len(prefix) && k[:len(prefix)] == prefix {
					want[k] += n
				}
			}
		}
		maps.DeleteFunc(want, func(_ string, n int64) bool { return n <= 0 })
		seen := map[string]bool{}
		start, end := edgeDayRange(ed.t, ed.d)
		var val []byte
		err = r.Scan(ctx, schemas.TableEdgeDays, start, end, func(key, value []byte) error {
			n, ok := want[string(key)]
			seen[string(key)] = true
			switch {
			case !ok:
				return problem("orphan", schemas.Cell{Table: schemas.TableEdgeDays, Key: bytes.Clone(key), Delete: true},
					"%s weighs %s tweets, but it has no edge cell", edgeDayName(key), value)
			case !bytes.Equal(strconv.AppendInt(val[:0], n, 10), value):
				return problem("wrong", schemas.Cell{Table: schemas.TableEdgeDays, Key: bytes.Clone(key), Value: strconv.AppendInt(nil, n, 10)},
					"%s weighs %s tweets, its edge cells %d", edgeDayName(key), value, n)
			}
			return nil
		})
		if err != nil {
			return rows, fmt.Errorf("check: reading the edge weights of %s %s: %w", ed.t.Name(), dayName(ed.d), err)
		}
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if !seen[k] {
				err := problem("missing", schemas.Cell{Table: schemas.TableEdgeDays, Key: []byte(k), Value: strconv.AppendInt(nil, want[k], 10)},
					"%s: no weight of its %d edge cells", edgeDayName([]byte(k)), want[k])
				if err != nil {
					return rows, err
				}
			}
		}
	}
	return rows, nil
}

// edgeDayName names the edge of an edge weight's key for people.
func edgeDayName(key []byte) string {
	src, dst, ok := schemas.EdgeDayNodes(key)
	if !ok {
		return fmt.Sprintf("%q", key)
	}
	return fmt.Sprintf("%s %s %s>%s", schemas.EdgeType(key[0]).Name(), dayName(binary.BigEndian.Uint16(key[1:3])), src, dst)
}
