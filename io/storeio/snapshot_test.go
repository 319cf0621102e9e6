package storeio

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestPublishSnapshots: a store being written publishes snapshots a reader
// opens read-only; a snapshot a reader has open survives newer ones, the
// others are removed, and stop removes them all once the reader is done.
func TestPublishSnapshots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(minute string, n int64) {
		if err := s.Write([]schemas.Cell{schemas.FrequencyRow{Minute: minute, Lang: "en", Count: n}.Cell()}); err != nil {
			t.Fatal(err)
		}
	}
	write("202611011200", 3)
	var mu sync.Mutex
	var took []time.Duration
	published := make(chan struct{}, 1) // a wake-up after each snapshot published
	stop := PublishSnapshots(dir, 20*time.Millisecond, func(d time.Duration) {
		mu.Lock()
		took = append(took, d)
		mu.Unlock()
		select {
		case published <- struct{}{}:
		default:
		}
	})
	defer stop()
	// waitPublished waits until n more snapshots than now are published.
	waitPublished := func(n int) {
		t.Helper()
		mu.Lock()
		want := len(took) + n
		mu.Unlock()
		timeout := time.After(30 * time.Second)
		for {
			mu.Lock()
			got := len(took)
			mu.Unlock()
			if got >= want {
				return
			}
			select {
			case <-published:
			case <-timeout:
				t.Fatalf("%d snapshots published in 30 s, want %d", got-want+n, n)
			}
		}
	}
	count := func(r *Store) int {
		n := 0
		if err := r.Scan(context.Background(), schemas.TableFrequency, nil, nil, func(_, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitPublished(1)
	r, _, err := openSnapshot(dir, nil)
	if err != nil {
		t.Fatalf("opening the snapshot published: %v", err)
	}
	if snap, at := r.Snapshot(); !snap || time.Since(at) > time.Minute {
		t.Errorf("Snapshot() = %v, %v", snap, at)
	}
	if n := count(r); n != 1 {
		t.Errorf("snapshot holds %d frequency rows, want 1", n)
	}
	write("202611011201", 4)
	// Several newer snapshots; the first may have begun before the write,
	// the others hold it.
	waitPublished(3)
	if _, err := os.Stat(r.Dir()); err != nil {
		t.Errorf("the snapshot a reader has open was removed: %v", err)
	}
	if names := snapshotNames(SnapshotsDir(dir)); len(names) > 3 {
		t.Errorf("%d snapshots kept, want the newest and the one read", len(names))
	}
	r2, _, err := openSnapshot(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(r2); n != 2 {
		t.Errorf("newest snapshot holds %d frequency rows, want 2", n)
	}
	r.Close()
	r2.Close()
	stop()
	if _, err := os.Stat(SnapshotsDir(dir)); !os.IsNotExist(err) {
		t.Errorf("snapshots left after stop: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(took) == 0 {
		t.Fatal("no snapshot timed")
	}
	t.Logf("%d snapshots, first %v, last %v", len(took), took[0], took[len(took)-1])
}
