package query_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/query"
	"github.com/tweetindex/tweetindex/schemas"
)

// tableReads is a sink.Reader that counts the scans of each table and can
// hide the authors table or the per-day edge weights, as a store indexed
// before it existed: no schemas.AuthorsParam (schemas.EdgeDaysParam) and
// no rows.
type tableReads struct {
	sink.Reader
	hideAuthors, hideEdgeDays bool
	scans                     [256]atomic.Int64
}

func (r *tableReads) Scan(ctx context.Context, table schemas.Table, start, end []byte, fn func(key, value []byte) error) error {
	r.scans[table].Add(1)
	if r.hideAuthors && table == schemas.TableAuthors || r.hideEdgeDays && table == schemas.TableEdgeDays {
		return nil
	}
	return r.Reader.Scan(ctx, table, start, end, fn)
}

func (r *tableReads) Lookup(ctx context.Context, table schemas.Table, key []byte) ([]byte, bool, error) {
	if table == schemas.TableMeta && (r.hideAuthors && string(key) == schemas.AuthorsParam || r.hideEdgeDays && string(key) == schemas.EdgeDaysParam) {
		return nil, false, nil
	}
	return r.Reader.Lookup(ctx, table, key)
}

// TestUsersFromAuthorsTable answers users and --top over ranges with
// mid-minute ends and with a language, three ways: from the authors table
// of a freshly indexed store, from the raw rows of the same store with the
// authors table hidden (a store indexed before it existed), and by
// decoding every stored tweet. All three agree; the first reads no raw
// row, the second no authors row.
func TestUsersFromAuthorsTable(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	h := time.Hour
	for _, f := range []query.Filter{
		{From: dataStart.Add(h + 15*time.Second), To: dataStart.Add(7*h + 45*time.Second)},
		{From: dataStart.Add(30*h + 59*time.Second), To: dataStart.Add(31*h + time.Second)},
		{From: dataStart.Add(2 * h), To: dataStart.Add(50 * h), Lang: "es"},
		{From: dataStart.Add(h), To: dataStart.Add(h)}, // empty
		{}, // everything
	} {
		name := fmt.Sprintf("%s..%s %q", f.From.Format("02T15:04:05"), f.To.Format("02T15:04:05"), f.Lang)
		// By decoding every tweet of the range.
		want := map[string]int64{}
		err := query.NewEngine(store).Tweets(ctx, f, query.Page{}, func(hit query.Hit) error {
			tw, err := hit.Tweet()
			if err == nil && (f.Lang == "" || tw.Lang == f.Lang) {
				want[strings.ToLower(tw.ScreenName)]++
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if f.From.IsZero() && len(want) < 100 {
			t.Fatalf("%s: %d users: the test data should have more", name, len(want))
		}
		for _, hide := range []bool{false, true} {
			r := &tableReads{Reader: store, hideAuthors: hide}
			e := query.NewEngine(r)
			indexed, err := e.AuthorsIndexed(ctx)
			if err != nil || indexed == hide {
				t.Fatalf("%s hidden %v: AuthorsIndexed %v, %v", name, hide, indexed, err)
			}
			top, dist, err := e.TopUsers(ctx, f, len(want)+1)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, u := range top {
				got[u.ScreenName] = u.Tweets
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s hidden %v: TopUsers %v, decoding %v", name, hide, got, want)
			}
			users := int64(0)
			for _, d := range dist {
				users += d.Users
			}
			if users != int64(len(want)) {
				t.Errorf("%s hidden %v: the distribution holds %d users, want %d", name, hide, users, len(want))
			}
			raw, authors := r.scans[schemas.TableRaw].Load(), r.scans[schemas.TableAuthors].Load()
			if f.From.Equal(f.To) && !f.From.IsZero() {
				continue // an empty range reads nothing
			}
			if hide && (raw == 0 || authors != 0) || !hide && (raw != 0 || authors == 0) {
				t.Errorf("%s hidden %v: %d scans of the raw table, %d of the authors table", name, hide, raw, authors)
			}
		}
	}
}

// TestAuthorsRowsFollowRaw checks the store's authors table against its
// raw table: one row per raw cell, same keys, in the same order.
func TestAuthorsRowsFollowRaw(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	var raw, authors [][]byte
	collect := func(dst *[][]byte) func(key, _ []byte) error {
		return func(key, _ []byte) error { *dst = append(*dst, bytes.Clone(key)); return nil }
	}
	if err := store.Scan(ctx, schemas.TableRaw, nil, nil, collect(&raw)); err != nil {
		t.Fatal(err)
	}
	if err := store.Scan(ctx, schemas.TableAuthors, nil, nil, collect(&authors)); err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || len(raw) != len(authors) {
		t.Fatalf("%d raw cells, %d authors rows", len(raw), len(authors))
	}
	for i := range raw {
		if !bytes.Equal(raw[i], authors[i]) {
			t.Fatalf("cell %d: raw key %x, authors key %x", i, raw[i], authors[i])
		}
	}
}
