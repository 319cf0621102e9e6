// Package tweetgen generates the project's test data and, for each data
// set, the counts a correct reader must report: an oracle independent of
// the project's own parsing code (it imports none of it, which .ci/layers
// checks). Three data sets, each byte-for-byte the same for the same
// configuration:
//
//   - WriteSample: the committed sample (every input format and every kind
//     of damage, about 2,000 items) and its oracle.
//   - WriteBench: n realistic v1.1 stream tweets as JSON lines and
//     DIR/EXPECTED.json.
//   - WriteGrab: the bench's tweets filed as the Internet Archive's Twitter
//     Stream Grab files them, for backfills.
//
// The command testdata/gen writes them from the command line (make
// sample, make bench-query); tests call these functions directly.
// testdata/README.md defines every count.
package tweetgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// SampleConfig configures WriteSample.
type SampleConfig struct {
	// Seed seeds the generator: the same Seed writes the same bytes.
	Seed uint64
	// Out is the directory to write the sample to (created if needed). It
	// may hold only files the sample itself writes: stale inputs would
	// change what a reader counts.
	Out string
	// Expected is the oracle file (default: ExpectedPath(Out), beside Out,
	// so that a glob over the inputs never picks it up).
	Expected string
}

// Validate reports whether c can be written.
func (c SampleConfig) Validate() error {
	if c.Out == "" {
		return errors.New("sample: Out (the directory to write, -out) is required")
	}
	return nil
}

// ExpectedPath returns the default oracle file of a sample written to
// dir: ../expected/<base of dir>.json beside it.
func ExpectedPath(dir string) string {
	dir = filepath.Clean(dir)
	return filepath.Join(filepath.Dir(dir), "expected", filepath.Base(dir)+".json")
}

// WriteSample builds the sample of c.Seed, writes its files to c.Out and
// its oracle to c.Expected, and returns the oracle and the number of
// files written. It stops early with ctx's error if ctx ends.
func WriteSample(ctx context.Context, c SampleConfig) (*Expected, int, error) {
	if err := c.Validate(); err != nil {
		return nil, 0, err
	}
	if c.Expected == "" {
		c.Expected = ExpectedPath(c.Out)
	}
	set := buildSample(c.Seed)
	if err := writeSample(ctx, set, c.Out, c.Expected); err != nil {
		return nil, 0, err
	}
	return set.exp, len(set.files), nil
}

// writeSample writes the files of set to dir and its oracle to expected.
func writeSample(ctx context.Context, set *sampleSet, dir, expected string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, len(set.files))
	for i, f := range set.files {
		names[i] = f.name
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !slices.Contains(names, e.Name()) {
			return fmt.Errorf("%s holds %s, which the sample does not write: remove it or use another directory", dir, e.Name())
		}
	}
	for _, f := range set.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write sample: %w", err)
		}
	}
	return writeExpected(set.exp, expected)
}

// writeExpected writes e as indented JSON (map keys sorted).
func writeExpected(e *Expected, path string) error {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write oracle: %w", err)
	}
	return nil
}
