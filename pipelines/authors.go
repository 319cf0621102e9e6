package pipelines

import (
	"context"
	"errors"
	"fmt"

	"github.com/tweetindex/tweetindex/schemas"
)

// authorsParam returns the schemas.AuthorsParam cell to write with the
// run's first record when the sink is fresh (no tweet stored) and its raw
// table empty: every raw row it will hold is then written with its
// TweetAuthors row (transforms.RawFn), and questions about users may read
// that table alone. A sink indexed before the table existed never gets
// the parameter (later runs add authors rows for their tweets only), and
// its questions about users read the raw rows, as before.
func authorsParam(ctx context.Context, cfg Config, fresh bool) ([]schemas.Cell, error) {
	if !fresh {
		return nil, nil
	}
	s, err := openSink(cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	empty := true
	err = s.ScanAll(ctx, schemas.TableRaw, func(_, _ []byte) error {
		empty = false
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("reading the raw table: %w", err)
	}
	if !empty {
		return nil, nil
	}
	return []schemas.Cell{schemas.MetaRow{Name: schemas.AuthorsParam, Value: schemas.AuthorsValue}.Cell()}, nil
}
