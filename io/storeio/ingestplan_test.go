package storeio

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestSortedLoadIngestCutOff stops the end of a load with a base before
// either of its two ingestions and drops the database as a crash would
// (no Finish again, no flush): the next Open completes the ingestion from
// the plan the end saved, and the tables hold the last write of every
// key; a second Open finds nothing left to complete. Or, stopped by an
// error between the two, the end runs again in the same process (the
// run recording its failure flushes the store again) and completes them.
func TestSortedLoadIngestCutOff(t *testing.T) {
	setChunkBytes(t, 4<<10)
	for _, tc := range []struct {
		stage string
		crash bool
	}{{"base", true}, {"tables", true}, {"tables", false}} {
		stage := tc.stage
		name := "crash before " + stage
		if !tc.crash {
			name = "FlushOpen again after an error before " + stage
		}
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			s, err := OpenBulk(dir)
			if err != nil {
				t.Fatal(err)
			}
			var written atomic.Int64
			defer MergeEarly(dir, func() float64 { return float64(written.Load()) / 1000 })()
			model := map[string]string{}
			rng := rand.New(rand.NewPCG(5, 6))
			for w := range 2000 {
				written.Store(int64(w))
				k := schemas.TermRow{Term: fmt.Sprintf("t%03d", rng.IntN(400)), Field: "text", Key: schemas.RowKey{byte(w % 3)}}.Cell()
				if rng.IntN(4) == 0 {
					k.Delete = true
					delete(model, string(k.Key))
				} else {
					k.Value = []byte(fmt.Sprint(w))
					model[string(k.Key)] = string(k.Value)
				}
				if _, err := s.sorted.Take([]schemas.Cell{k}); err != nil {
					t.Fatal(err)
				}
			}
			s.sorted.spills.Wait()
			if len(s.sorted.baseTables) == 0 {
				t.Fatal("no base: the test wants one")
			}
			cut := errors.New("cut off")
			oldCut := cutIngest
			cutIngest = func(at string) error {
				if at == stage {
					return cut
				}
				return nil
			}
			_, err = FlushOpen(context.Background(), dir, false)
			cutIngest = oldCut
			if !errors.Is(err, cut) {
				t.Fatalf("FlushOpen: %v, want the cut", err)
			}
			if tc.crash {
				// The process dies: the database goes without the store's Close.
				openMu.Lock()
				delete(opened, s.dir)
				openMu.Unlock()
				if err := s.db.Close(); err != nil {
					t.Fatal(err)
				}
				if s, err = Open(dir); err != nil {
					t.Fatal(err)
				}
			} else if _, err := FlushOpen(context.Background(), dir, false); err != nil {
				t.Fatalf("FlushOpen again: %v", err)
			}
			got := map[string]string{}
			s.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error {
				got[string(k)] = string(v)
				return nil
			})
			if len(got) != len(model) {
				t.Errorf("term table holds %d cells after the store was opened again, want %d", len(got), len(model))
			}
			for k, v := range model {
				if got[k] != v {
					t.Fatalf("term %x = %q, want %q", k, got[k], v)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "bulk-load")); !os.IsNotExist(err) {
				t.Errorf("the completed load's scratch directory is left behind (%v)", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			db, err := pebble.Open(dir, options(false))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if again, err := recoverIngest(db, vfs.Default, dir); again || err != nil {
				t.Errorf("recoverIngest on the next open: %v, %v; want nothing to complete", again, err)
			}
		})
	}
}

// TestBeforeIngest: the end of a load with a base calls BeforeIngest
// before each of its two ingestions, the base's and then its own, and,
// with it set, does not cut the base's merge short (the crash tests of
// pipelines/cmd/tweetindex exit there, and want a base under way to end
// with tables to ingest); the load ends whole.
func TestBeforeIngest(t *testing.T) {
	setChunkBytes(t, 4<<10)
	var stages []string
	BeforeIngest = func(stage string) { stages = append(stages, stage) }
	t.Cleanup(func() { BeforeIngest = nil })
	s, dir := openBulkTemp(t)
	var written atomic.Int64
	defer MergeEarly(dir, func() float64 { return float64(written.Load()) / 1000 })()
	for w := range 2000 {
		written.Store(int64(w))
		c := schemas.TermRow{Term: fmt.Sprintf("t%04d", w), Field: "text", Key: schemas.RowKey{1}}.Cell()
		if _, err := s.sorted.Take([]schemas.Cell{c}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := FlushOpen(context.Background(), dir, false); err != nil {
		t.Fatal(err)
	}
	if want := []string{"base", "tables"}; !slices.Equal(stages, want) {
		t.Errorf("BeforeIngest called with %q, want %q", stages, want)
	}
	if s.sorted.cutBase.Load() {
		t.Error("the end cut the base's merge short with BeforeIngest set")
	}
	n := 0
	s.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error { n++; return nil })
	if n != 2000 {
		t.Errorf("term table holds %d cells, want 2000", n)
	}
}

// TestOpenRemovesSpilledRuns: a bulk load killed before its end (or one
// whose end failed, on a full disk) leaves its spilled runs in the
// store's scratch directory; the next open of the store, a reader's too,
// removes them, since nothing can complete that load.
func TestOpenRemovesSpilledRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	scratch := filepath.Join(dir, "bulk-load")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scratch, "run-00003"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRead(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("the spilled runs of a dead load are left after an open (%v)", err)
	}
}
