package pipelines

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/tweetindex/tweetindex/schemas"
)

// Run builds the graph for cfg, runs it on the runner chosen by Beam's
// --runner flag (prism by default) and returns the run's summary. The run
// is recorded in the metadata table.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if err := CheckRunner(ctx); err != nil {
		return Summary{}, err
	}
	tuneForRunner()
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, cfg); err != nil {
		return Summary{}, err
	}
	started := time.Now()
	result, err := beamx.RunWithMetrics(ctx, p)
	elapsed := time.Since(started)
	if err != nil {
		return Summary{}, runError(ctx, err)
	}
	sum := SummaryFromResult(result, elapsed)
	if err := recordRun(ctx, cfg, started, elapsed, sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// IndexParams are the index parameters readers need; they are written to
// the metadata table under "param/index" on every run.
type IndexParams struct {
	SpreadCount  int    `json:"spread_count"`
	GeohashLen   int    `json:"geohash_len"`
	RowKey       string `json:"row_key"`
	Murmur2Seed  string `json:"murmur2_seed"`
	MinuteLayout string `json:"minute_layout"`
}

// CurrentParams returns the parameters of this build.
func CurrentParams() IndexParams {
	return IndexParams{
		SpreadCount:  schemas.SpreadCount,
		GeohashLen:   schemas.GeohashLen,
		RowKey:       "8-byte big-endian created_at seconds + 4-byte big-endian murmur2(json)",
		Murmur2Seed:  fmt.Sprintf("0x%08x", schemas.Murmur2Seed),
		MinuteLayout: "YYYYMMDDhhmm UTC",
	}
}

// RunRecord is the metadata row of one run, under "run/<start time>".
type RunRecord struct {
	Source   string  `json:"source"`
	From     string  `json:"from,omitempty"`
	To       string  `json:"to,omitempty"`
	Started  string  `json:"started"`
	Finished string  `json:"finished"`
	Status   string  `json:"status"`
	Summary  Summary `json:"summary"`
}

func recordRun(ctx context.Context, cfg Config, started time.Time, elapsed time.Duration, sum Summary) error {
	tables, err := OpenTables(cfg.Store, cfg.Cassandra, false)
	if err != nil {
		return err
	}
	params, _ := json.Marshal(CurrentParams())
	rec := RunRecord{
		Source:   cfg.Source(),
		Started:  started.UTC().Format(time.RFC3339Nano),
		Finished: started.Add(elapsed).UTC().Format(time.RFC3339Nano),
		Status:   "succeeded",
		Summary:  sum,
	}
	if !cfg.From.IsZero() {
		rec.From = cfg.From.UTC().Format(time.RFC3339)
	}
	if !cfg.To.IsZero() {
		rec.To = cfg.To.UTC().Format(time.RFC3339)
	}
	run, _ := json.Marshal(rec)
	werr := tables.Write(ctx, []schemas.Cell{
		schemas.MetaRow{Name: "param/index", Value: params}.Cell(),
		schemas.MetaRow{Name: "run/" + started.UTC().Format(time.RFC3339Nano), Value: run}.Cell(),
	})
	if cerr := tables.Close(); werr == nil {
		werr = cerr
	}
	return werr
}
