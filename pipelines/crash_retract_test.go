package pipelines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// errCrash is the error of a write after the crash crashingWriter stages.
var errCrash = errors.New("crashed")

// crashingWriter writes to a sink until budget cells are written, then
// crashes: the write that crosses the budget is applied in part, its
// cells in order or, with reverse, last first (a Cassandra writer sends a
// write's partitions at once, in no order), and every write from then on
// fails.
type crashingWriter struct {
	s       *sink.Sink
	budget  int
	reverse bool
	crashed bool
}

func (c *crashingWriter) Write(ctx context.Context, cells []schemas.Cell) error {
	if c.crashed {
		return errCrash
	}
	if len(cells) <= c.budget {
		c.budget -= len(cells)
		return c.s.Write(ctx, cells)
	}
	part := slices.Clone(cells)
	if c.reverse {
		slices.Reverse(part)
	}
	part, c.crashed = part[:c.budget], true
	if len(part) > 0 {
		if err := c.s.Write(ctx, part); err != nil {
			return err
		}
	}
	return errCrash
}

// deleteInPipeline applies deletes of ids as a run does after
// deduplication: Identify (which removes what it retracts itself, through
// write), then the raw, term and geo cells of the batch it returns, each
// table's in one write as a sink writes a bundle's; with sinksReversed,
// geo first and raw (the tombstones) first.
func deleteInPipeline(ctx context.Context, s *sink.Sink, write func(context.Context, []schemas.Cell) error, ids []uint64, sinksReversed bool) error {
	x := transforms.Identifier{Sink: s.Identities(), Write: write}
	x.StartBundle()
	out, err := x.Identify(ctx, transforms.TweetBatch{Deletes: ids})
	if err != nil {
		return err
	}
	tables := []func(*transforms.TweetBatch) []schemas.Cell{
		func(b *transforms.TweetBatch) (cells []schemas.Cell) {
			(&transforms.RawFn{}).ProcessElement(*b, func(cs []schemas.Cell) { cells = cs })
			return cells
		},
	}
	for _, d := range transforms.DerivedTables() {
		tables = append(tables, func(b *transforms.TweetBatch) []schemas.Cell {
			cells, err := transforms.DeriveTable(nil, d.Table, b)
			if err != nil {
				panic(err) // every DerivedTables is one
			}
			return cells
		})
	}
	if sinksReversed {
		slices.Reverse(tables)
	}
	for _, table := range tables {
		cells := table(&out)
		if err := write(ctx, cells); err != nil {
			return err
		}
	}
	return nil
}

// copyDir copies the files of directory from into to.
func copyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// allCells returns every cell of every table of the store in dir.
func allCells(t *testing.T, dir string) []schemas.Cell {
	t.Helper()
	s, err := sink.Open(sink.Config{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var cells []schemas.Cell
	for _, table := range schemas.Tables {
		err := s.ScanAll(context.Background(), table, func(key, value []byte) error {
			cells = append(cells, schemas.Cell{Table: table, Key: bytes.Clone(key), Value: bytes.Clone(value)})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return cells
}

// TestCrashWhileRetractingCompletesWhenRunAgain deletes one tweet of a
// colliding pair (the rows they share must stay) as a run does, and
// crashes it at every cell of its writes: after each number of cells
// written (the write that crosses it applied in part, in order or last
// cell first), with the sinks writing raw (the tombstone) first or last.
// Running the delete again, as a run replays it or as tweetindex forget,
// then leaves the tables of the other tweet indexed alone, and the
// tombstone. On the store, and through gocql on the CQL test server.
// (Before Identify removed what it retracts itself, a crash after the
// tombstone and before the term and geo deletes left those rows for good:
// the run again found the tombstone and did nothing.)
func TestCrashWhileRetractingCompletesWhenRunAgain(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	lines, ids := collidingPairAtOnePoint(at)
	dir := tempDir(t)
	both, other := filepath.Join(dir, "pair.jsonl"), filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(both, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, alone := filepath.Join(dir, "base"), filepath.Join(dir, "alone")
	runPipeline(t, Config{Input: both, Store: base})
	runPipeline(t, Config{Input: other, Store: alone})
	want := dumpStore(t, alone)
	gone := ids[:1]

	// The cells a delete writes when nothing crashes.
	total := 0
	{
		d := filepath.Join(dir, "count")
		copyDir(t, base, d)
		s, err := sink.Open(sink.Config{Store: d})
		if err != nil {
			t.Fatal(err)
		}
		count := func(ctx context.Context, cells []schemas.Cell) error { total += len(cells); return s.Write(ctx, cells) }
		if err := deleteInPipeline(ctx, s, count, gone, false); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	if total < 5 {
		t.Fatalf("a delete wrote %d cells: too few for the crash points to mean anything", total)
	}

	// crashAndRerun crashes a delete on the sink of cfg and runs it again.
	// The collision record of the pair's row key goes once the row key
	// holds one tweet (transforms.Identifier), never before: checked
	// after the crash (a row key of two tweets without its record would
	// be counted once) and after the run again (it goes if the crash
	// left both tweets; one left by the crash after the raw delete costs
	// a read, not a wrong count).
	crashAndRerun := func(t *testing.T, cfg Config, budget int, cellsReversed, sinksReversed, byForget bool, what string) {
		s, err := sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra})
		if err != nil {
			t.Fatal(err)
		}
		w := &crashingWriter{s: s, budget: budget, reverse: cellsReversed}
		if err := deleteInPipeline(ctx, s, w.Write, gone, sinksReversed); err != nil && !errors.Is(err, errCrash) {
			t.Fatalf("the delete that crashes: %v", err)
		}
		records, collided := collisionState(t, cfg)
		if len(collided) > 0 && !slices.Equal(records, collided) {
			t.Errorf("%s: after the crash, row keys %v hold two tweets and the records name %v", what, collided, records)
		}
		defer func() {
			if records, _ := collisionState(t, cfg); len(collided) > 0 && len(records) > 0 {
				t.Errorf("%s: the run again removed the tweet and left the collision records %v", what, records)
			}
		}()
		if byForget {
			s.Close()
			if _, err := forget(ctx, cfg, maintain.IDList{IDs: gone}); err != nil {
				t.Fatalf("forget again: %v", err)
			}
		} else {
			err := deleteInPipeline(ctx, s, s.Write, gone, sinksReversed)
			s.Close()
			if err != nil {
				t.Fatalf("the delete again: %v", err)
			}
			if _, err := recountMarked(ctx, cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(t *testing.T, cfg Config, got map[string]string, what string) {
		t.Helper()
		for _, name := range []string{"raw", "terms", "geo", "frequency"} {
			if got[name] != want[name] {
				t.Errorf("%s: table %s:\n%s\nwant (the other tweet alone):\n%s", what, name, got[name], want[name])
			}
		}
		s, err := sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rows, err := s.Identities().Identities(ctx, ids[:])
		if err != nil {
			t.Fatal(err)
		}
		if !rows[ids[0]].Deleted || rows[ids[1]].Deleted {
			t.Errorf("%s: identity rows %+v: want a tombstone for %d only", what, rows, ids[0])
		}
	}

	type crashCase struct {
		budget                                 int
		cellsReversed, sinksReversed, byForget bool
	}
	var cases []crashCase
	for budget := 0; budget <= total; budget++ {
		for i := range 4 {
			cases = append(cases, crashCase{budget, i&1 != 0, i&2 != 0, (budget+i)%2 == 0})
		}
	}
	name := func(c crashCase) string {
		return fmt.Sprintf("crash after %d of %d cells (cells reversed %v, tombstones last %v), run again by forget %v", c.budget, total, c.cellsReversed, c.sinksReversed, c.byForget)
	}

	t.Run("store", func(t *testing.T) {
		for i, c := range cases {
			d := filepath.Join(dir, fmt.Sprintf("case%d", i))
			copyDir(t, base, d)
			cfg := Config{Store: d}
			crashAndRerun(t, cfg, c.budget, c.cellsReversed, c.sinksReversed, c.byForget, name(c))
			check(t, cfg, dumpStore(t, d), name(c))
			os.RemoveAll(d)
		}
	})
	t.Run("cassandra", func(t *testing.T) {
		if testing.Short() {
			t.Skip("a CQL test server per crash point: full suite only")
		}
		cells := allCells(t, base)
		for _, c := range cases {
			if !c.cellsReversed {
				continue // a Cassandra write lands in any order: the reversed one is the adversary
			}
			_, ccfg := startCQL(t)
			cfg := Config{Cassandra: ccfg}
			s, err := sink.Open(sink.Config{Cassandra: ccfg})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Write(ctx, cells); err != nil {
				t.Fatal(err)
			}
			s.Close()
			crashAndRerun(t, cfg, c.budget, c.cellsReversed, c.sinksReversed, c.byForget, name(c))
			check(t, cfg, dumpCassandra(t, ccfg), name(c))
		}
	})
}
