package pipelines

import (
	"context"
	"errors"
	"fmt"

	"github.com/tweetindex/tweetindex/schemas"
)

// geoDaysParam returns the schemas.GeoDayMarkersParam cell to write with
// the run's first record when the sink is fresh (no tweet stored) and its
// geo table empty: every geo row it will hold is then written with its day
// marker (transforms.GeoFn), and readers may skip the days without one. A
// sink indexed before the markers existed never gets the parameter, and
// its readers read every day, as before.
func geoDaysParam(ctx context.Context, cfg Config, fresh bool) ([]schemas.Cell, error) {
	if !fresh {
		return nil, nil
	}
	s, err := openSink(cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	empty := true
	err = s.ScanAll(ctx, schemas.TableGeo, func(_, _ []byte) error {
		empty = false
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("reading the geo table: %w", err)
	}
	if !empty {
		return nil, nil
	}
	return []schemas.Cell{schemas.MetaRow{Name: schemas.GeoDayMarkersParam, Value: schemas.GeoDayMarkersValue}.Cell()}, nil
}
