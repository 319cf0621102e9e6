package job

import (
	"context"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// freshParams returns the parameter cells to write with the run's first
// record when the sink is fresh (no tweet stored), each only if its table
// is empty too, so that every row the table will hold is written the new
// way:
//
//   - schemas.GeoDayMarkersParam: every geo row comes with its day marker
//     (transforms.DerivedTables), and readers may skip the days without one;
//   - schemas.AuthorsParam: every raw row comes with its TweetAuthors row
//     (transforms.RawFn), and questions about users may read that table
//     alone;
//   - schemas.EdgesParam: every raw row comes with its TweetEdges rows
//     (transforms.DerivedTables), and questions about edges may be asked;
//   - schemas.EdgeDaysParam: every day of the edge table has its edge
//     weights (maintain.RecountMarked), and questions about edges may read
//     them for whole days;
//   - schemas.TermDaysParam, unless the run leaves them out
//     (pipelines.Config.NoTermDays): every day of stored tweets has its term
//     counts (maintain.RecountMarked), and questions about top and
//     trending terms may be asked.
//
// A sink indexed before a parameter existed never gets it (later runs
// write the new rows for their tweets only), and its readers go on as
// before: every day read, the raw rows read for users. The tokenizer's
// version (schemas.TokenizerParam) is the one parameter such a sink gets
// later, from a run told to mix versions: see tokenizerParam.
func freshParams(ctx context.Context, s sink.Reader, fresh, termDays bool) ([]schemas.Cell, error) {
	if !fresh {
		return nil, nil
	}
	var cells []schemas.Cell
	for _, p := range []struct {
		table schemas.Table
		cell  schemas.Cell
	}{
		{schemas.TableGeo, schemas.MetaRow{Name: schemas.GeoDayMarkersParam, Value: schemas.GeoDayMarkersValue}.Cell()},
		{schemas.TableRaw, schemas.MetaRow{Name: schemas.AuthorsParam, Value: schemas.AuthorsValue}.Cell()},
		{schemas.TableRaw, schemas.MetaRow{Name: schemas.EdgesParam, Value: schemas.EdgesValue}.Cell()},
		{schemas.TableRaw, schemas.MetaRow{Name: schemas.EdgeDaysParam, Value: schemas.EdgeDaysValue}.Cell()},
		{schemas.TableRaw, schemas.MetaRow{Name: schemas.TermDaysParam, Value: schemas.TermDaysValue}.Cell()},
	} {
		if p.cell.Key != nil && string(p.cell.Key) == schemas.TermDaysParam && !termDays {
			continue // per-day term counts left out (Config.NoTermDays)
		}
		empty, err := tableEmpty(ctx, s, p.table)
		if err != nil {
			return nil, err
		}
		if empty {
			cells = append(cells, p.cell)
		}
	}
	return cells, nil
}
