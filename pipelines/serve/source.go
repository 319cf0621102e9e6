package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/query"
)

// Source is the tables the questions are asked of, renewed while the
// server runs: a store a stream is writing is read through the stream's
// newest snapshot (as tweetindex query reads it), and the server moves to
// a newer one when it is published; on Cassandra each renewal starts a
// new engine, so that the data's extent (what an open range means) and
// the metadata it caches are read again. A store no other process writes
// is held, and never renewed. A store this process is writing (a stream
// that serves its own store, SourceConfig.Live) is read as it is, live:
// each renewal is a new engine over the same open store, as on Cassandra.
//
// Each request answers from one view (a generation) from its start to its
// end; a view is closed once the last request using it is done.
type Source struct {
	cfg SourceConfig

	mu     sync.Mutex
	cur    *generation
	closed bool
}

// SourceConfig says how to open the tables.
type SourceConfig struct {
	// Open opens the tables for reading: the store (or its newest
	// snapshot, sink.Config.Snapshot) or the keyspace.
	Open func() (*sink.Sink, error)
	// Store is the store's directory ("" for Cassandra): where its
	// snapshots are looked for.
	Store string
	// Live says that this process writes the store (a stream serving its
	// own store): Open returns the process's shared store (storeio.OpenServed),
	// held for the source's life, and every request reads what the
	// writers have written by then, not a snapshot. Each renewal starts
	// a new engine over it (the data's extent, the metadata it caches).
	Live bool
}

// generation is one view of the tables.
type generation struct {
	sink      *sink.Sink
	engine    *query.Engine
	snapshot  time.Time // when the snapshot read was taken (zero: the store itself, or Cassandra)
	opened    time.Time
	ownsSink  bool // closing the generation closes the sink (false: a renewed engine over a shared session)
	refs      int  // requests using it, and 1 while it is current (under Source.mu)
	cassandra bool
	live      bool // the store this process writes (SourceConfig.Live)
}

// shared says that a renewal is a new engine over the same sink: a
// keyspace, or the store this process writes.
func (g *generation) shared() bool { return g.cassandra || g.live }

// OpenSource opens the tables and reads their extent (so that the first
// question does not).
func OpenSource(ctx context.Context, cfg SourceConfig) (*Source, error) {
	s := &Source{cfg: cfg}
	g, err := s.openGeneration(ctx)
	if err != nil {
		return nil, err
	}
	if err := g.warm(ctx); err != nil {
		return nil, err
	}
	g.refs = 1
	s.cur = g
	return s, nil
}

func (s *Source) openGeneration(ctx context.Context) (*generation, error) {
	sk, err := s.cfg.Open()
	if err != nil {
		return nil, err
	}
	g := &generation{sink: sk, engine: query.NewEngine(sk.Reader), opened: time.Now(), ownsSink: true}
	if st, ok := sk.Reader.(*storeio.Store); ok {
		if snap, at := st.Snapshot(); snap {
			g.snapshot = at
		} else {
			g.live = s.cfg.Live
			g.engine.Live = g.live // an index row may come before its raw row
		}
	} else {
		g.cassandra = true
	}
	return g, nil
}

// warm reads the data's extent, so that the first question does not.
func (g *generation) warm(ctx context.Context) error {
	if _, _, err := g.engine.Extent(ctx); err != nil {
		if g.ownsSink {
			g.sink.Close()
		}
		return fmt.Errorf("reading the data's extent: %w", err)
	}
	return nil
}

// acquire returns the current view and the function that releases it.
func (s *Source) acquire() (*generation, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, fmt.Errorf("the server is shutting down")
	}
	g := s.cur
	g.refs++
	return g, func() { s.release(g) }, nil
}

func (s *Source) release(g *generation) {
	s.mu.Lock()
	g.refs--
	done := g.refs == 0
	s.mu.Unlock()
	if done && g.ownsSink {
		g.sink.Close()
	}
}

// renewable reports whether the current view can be renewed: a snapshot
// or a keyspace.
func (s *Source) renewable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur != nil && (s.cur.shared() || !s.cur.snapshot.IsZero())
}

// renew moves to a newer view when there is one: a newer snapshot, the
// store itself once its stream is gone, or (Cassandra, the store this
// process writes) a new engine over the same session or store.
func (s *Source) renew(ctx context.Context) error {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	var next *generation
	switch {
	case cur.shared():
		next = &generation{sink: cur.sink, engine: query.NewEngine(cur.sink.Reader), opened: time.Now(), cassandra: cur.cassandra, live: cur.live}
		next.engine.Live = cur.live
		if err := next.warm(ctx); err != nil {
			return err
		}
	case cur.snapshot.IsZero():
		return nil // the store itself: no one else writes it
	default:
		// A newer snapshot, or the store itself once its stream has
		// ended (its snapshots then go, but for the one read here).
		newest, ok := newestSnapshot(s.cfg.Store)
		newer := ok && newest.After(cur.snapshot)
		g, err := s.openGeneration(ctx)
		if err != nil {
			if newer {
				return err
			}
			return nil // the stream still holds the store, and has published nothing newer
		}
		if !g.snapshot.IsZero() && !g.snapshot.After(cur.snapshot) {
			g.sink.Close()
			return nil
		}
		if err := g.warm(ctx); err != nil {
			return err
		}
		next = g
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		if next.ownsSink {
			next.sink.Close()
		}
		return nil
	}
	if !next.ownsSink {
		cur.ownsSink = false // the session goes on in next
		next.ownsSink = true
	}
	next.refs = 1
	s.cur = next
	s.mu.Unlock()
	s.release(cur)
	return nil
}

// newestSnapshot returns when the newest published snapshot of the store
// in dir was taken (false: none is published).
func newestSnapshot(dir string) (time.Time, bool) {
	entries, err := os.ReadDir(storeio.SnapshotsDir(dir))
	if err != nil {
		return time.Time{}, false
	}
	var newest time.Time
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if at, err := time.Parse("20060102T150405.000000000", filepath.Base(e.Name())); err == nil && at.After(newest) {
			newest = at
		}
	}
	return newest, !newest.IsZero()
}

// keepRenewing renews the view every interval until ctx ends, reporting
// failures to warn (the current view stays).
func (s *Source) keepRenewing(ctx context.Context, interval time.Duration, warn func(error)) {
	if !s.renewable() {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.renew(ctx); err != nil && ctx.Err() == nil {
				warn(err)
			}
		}
	}
}

// state describes the current view for /healthz: the snapshot's time,
// and the tables: "store", "snapshot", "live" (the store this process
// writes) or "cassandra".
func (s *Source) state() (snapshot time.Time, tables string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.cur == nil:
		return time.Time{}, "store"
	case s.cur.cassandra:
		return time.Time{}, "cassandra"
	case s.cur.live:
		return time.Time{}, "live"
	case !s.cur.snapshot.IsZero():
		return s.cur.snapshot, "snapshot"
	}
	return time.Time{}, "store"
}

// Close closes the tables once the requests under way are done.
func (s *Source) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	cur := s.cur
	s.mu.Unlock()
	s.release(cur)
}
