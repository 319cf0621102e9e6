package transforms

import (
	"encoding/binary"
	"slices"

	"github.com/tweetindex/tweetindex/schemas"
)

// The per-day edge weights (schemas.EdgeDayRow) are counts of many
// tweets, as the per-day term counts are, so no tweet's cells make them:
// the edge step marks the days of the edge cells it writes
// (EdgeDayMarkers), and the days are recounted from the edge table once
// the run's pipeline is done (pipelines/maintain), as marked minutes are.

// EdgeDayMarkers is the edge table's marks (DerivedTable.Marks): the mark
// of each day of the edge cells written or deleted
// (schemas.EdgeDayMark), once, so that the day's edge weights are
// recounted at the end of the run. Marks are metadata rows, written with
// the edge rows by the graph's step and never deleted with a tweet; the
// recount removes them.
func EdgeDayMarkers(dst, cells []schemas.Cell) []schemas.Cell {
	var days []uint16
	for i := range cells {
		c := &cells[i]
		if c.Table != schemas.TableEdges || len(c.Key) < schemas.EdgePrefixLen {
			continue
		}
		d := binary.BigEndian.Uint16(c.Key[1:schemas.EdgePrefixLen])
		if len(days) > 0 && days[len(days)-1] == d || slices.Contains(days, d) {
			continue
		}
		days = append(days, d)
	}
	for _, d := range days {
		dst = append(dst, schemas.MetaRow{Name: schemas.EdgeDayMark(d)}.Cell())
	}
	return dst
}
