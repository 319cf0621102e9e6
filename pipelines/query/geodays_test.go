package query_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestCassandraBoxSkipsEmptyDays indexes geotagged tweets on two days 60
// days apart into the store and into the CQL test server, and asks for a
// box over the whole span: on Cassandra the engine reads the 255 spread
// partitions of the two days that hold geo rows (the day markers), not of
// the 59 empty days between, and answers exactly as the store does. A
// keyspace without the markers' promise (indexed before they existed) is
// read day by day, and answers the same.
func TestCassandraBoxSkipsEmptyDays(t *testing.T) {
	ctx := context.Background()
	dayA := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	dayB := dayA.AddDate(0, 0, 60)
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 40; i++ {
		at := dayA.Add(time.Duration(i) * 17 * time.Minute)
		if i%2 == 1 {
			at = dayB.Add(time.Duration(i) * 13 * time.Minute)
		}
		lat, lon := 52.3+float64(i%9)*0.1, 13.0+float64(i%7)*0.2 // around Berlin; some outside the box
		fmt.Fprintf(&b, `{"created_at":%q,"id_str":"%d","text":"point %d","lang":"de","user":{"name":"P","screen_name":"p"},"coordinates":{"type":"Point","coordinates":[%g,%g]}}`+"\n",
			at.Format(time.RubyDate), 800000000000000000+i, i, lon, lat)
	}
	if err := os.WriteFile(filepath.Join(dir, "points.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	storeDir := t.TempDir()
	if _, err := job.Run(ctx, pipelines.Config{Input: dir, Store: storeDir}); err != nil {
		t.Fatal(err)
	}
	st, err := storeio.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	c := indexCassandra(t, "tweetindex_days", dir)
	srv, cfg, cr := c.Server, c.Config, c.Reader

	box := &query.Box{MinLon: 13.1, MinLat: 52.4, MaxLon: 14.0, MaxLat: 53.0}
	answer := func(r sink.Reader, f query.Filter) string {
		t.Helper()
		e := query.NewEngine(r)
		n, err := e.CountGeo(ctx, f, box)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		if err := e.Geo(ctx, f, box, query.Page{}, func(h query.Hit) error { keys = append(keys, h.Key.String()); return nil }); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("count %d, tweets %v", n, keys)
	}
	reads := func() int64 { s := srv.Stats(); return s.Queries + s.Executes }

	span := query.Filter{From: dayA, To: dayB.Add(24 * time.Hour)}
	want := answer(st, span)
	var n int
	if _, err := fmt.Sscanf(want, "count %d", &n); err != nil || n < 10 || n == 40 {
		t.Fatalf("the store answers %s: pick a box with tweets of both days in it, and some outside", want)
	}
	before := reads()
	got := answer(cr, span)
	read := reads() - before
	t.Logf("box over 61 days: %s; %d reads", got, read)
	if got != want {
		t.Errorf("box over 61 days: Cassandra answers\n%s\nthe store\n%s", got, want)
	}
	// Two questions (count, tweets) over 2 marked days: 2 x 2 x 255 spreads
	// x at most RangeBudget ranges, 61 marker reads each and the tweets
	// read; the 59 empty days would add 2 x 59 x 255 reads at least.
	if limit := int64(2 * (2*schemas.SpreadCount*cr.RangeBudget() + 61 + 100)); read > limit || read < 2*2*schemas.SpreadCount {
		t.Errorf("box over 61 days with 2 holding points: %d reads, want between %d and %d", read, 2*2*schemas.SpreadCount, limit)
	}

	// Without the promise, every day of a short span is read.
	w, err := cassandraio.NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, []schemas.Cell{{Table: schemas.TableMeta, Key: []byte(schemas.GeoDayMarkersParam), Delete: true}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	short := query.Filter{From: dayA.Add(-24 * time.Hour), To: dayA.Add(48 * time.Hour)}
	want = answer(st, short)
	before = reads()
	if got := answer(cr, short); got != want {
		t.Errorf("box over 3 days without day markers: Cassandra answers\n%s\nthe store\n%s", got, want)
	}
	if read := reads() - before; read < 2*3*schemas.SpreadCount {
		t.Errorf("box over 3 days without day markers: %d reads, want every spread of every day (%d)", read, 2*3*schemas.SpreadCount)
	}
}
