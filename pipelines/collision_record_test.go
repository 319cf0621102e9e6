package pipelines

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// collisionState returns the row keys that cfg's sink records as
// collisions (schemas.CollisionName), and those its raw table holds more
// than one tweet under, each sorted.
func collisionState(t *testing.T, cfg Config) (records, collided []string) {
	t.Helper()
	s, err := openSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	err = sink.ScanPrefix(ctx, s, schemas.TableMeta, []byte(schemas.CollisionPrefix), func(key, _ []byte) error {
		k, ok := schemas.ParseCollisionName(string(key))
		if !ok {
			t.Errorf("collision record %q names no row key", key)
		}
		records = append(records, k.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tweets := map[string]int{}
	err = s.ScanAll(ctx, schemas.TableRaw, func(key, value []byte) error {
		r, err := schemas.DecodeRaw(key, value)
		if err != nil {
			return err
		}
		if tweets[r.Key.String()]++; tweets[r.Key.String()] == 2 {
			collided = append(collided, r.Key.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(records)
	slices.Sort(collided)
	return records, collided
}

// TestCollisionRecordFollowsTheRowKey: a row key that holds two tweets
// (a collision) is recorded in the metadata table, and once one of them
// goes (forgotten, deleted by a compliance message in a later run,
// replaced by a later run's version) and the row key holds one tweet
// again, the record goes too: after every case the records name exactly
// the row keys that hold more than one tweet. Store and CQL test server.
// Before, a record outlived its collision for good (a read more for every
// count of a term or box that reached the row key).
func TestCollisionRecordFollowsTheRowKey(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 9, 0, time.UTC)
	lines, ids := collidingPairAtOnePoint(at)
	third := snowflake(at.Add(5*time.Second), 3)
	thirdLine := v1Tweet(third, at.Add(5*time.Second), "a third tweet", 0, 0)
	// A later version of the first: other bytes, another row key.
	edited := lines[0][:len(lines[0])-1] + `,"edited":true}`
	if schemas.Murmur2([]byte(edited)) == schemas.Murmur2([]byte(lines[0])) {
		t.Fatal("the edited version hashes as the first: pick other bytes")
	}
	deleteOf := func(id uint64) string {
		return fmt.Sprintf(`{"delete":{"status":{"id":%d,"id_str":"%d","user_id":1,"user_id_str":"1"},"timestamp_ms":"1793534410000"}}`, id, id)
	}
	v2Delete := func(id uint64) string {
		return fmt.Sprintf(`{"id":"%d","action":"delete","created_at":"2026-11-02T00:00:00.000Z"}`, id)
	}
	type step struct {
		index  []string // lines indexed in one run
		forget []uint64 // or ids forgotten
	}
	index := func(lines ...string) step { return step{index: lines} }
	pair := index(lines[0], lines[1], thirdLine)
	cases := []struct {
		name   string
		steps  []step
		record bool // the pair's row key is recorded at the end
	}{
		{"the pair indexed", []step{pair}, true},
		{"the first forgotten", []step{pair, {forget: ids[:1]}}, false},
		{"the second forgotten", []step{pair, {forget: ids[1:]}}, false},
		{"both forgotten", []step{pair, {forget: ids[:]}}, false},
		{"another tweet forgotten", []step{pair, {forget: []uint64{third}}}, true},
		{"the first deleted by a later run", []step{pair, index(deleteOf(ids[0]))}, false},
		{"the second deleted by a v2 event in a later run", []step{pair, index(v2Delete(ids[1]))}, false},
		{"the first replaced by a later run's version", []step{pair, index(edited)}, false},
		{"the pair in two runs", []step{index(lines[0]), index(lines[1])}, true},
		{"the pair in two runs, then the first forgotten", []step{index(lines[0]), index(lines[1]), {forget: ids[:1]}}, false},
	}
	for _, sinks := range sinkKinds {
		t.Run(sinks.name, func(t *testing.T) {
			newSink := sinks.sinks(tempDir(t))
			dir := tempDir(t)
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					cfg, _ := newSink(t, fmt.Sprintf("case%d", i))
					for j, st := range c.steps {
						if len(st.forget) > 0 {
							if _, err := forget(context.Background(), cfg, maintain.IDList{IDs: st.forget}); err != nil {
								t.Fatal(err)
							}
							continue
						}
						run := cfg
						run.Input = writeLines(t, filepath.Join(dir, fmt.Sprintf("case%d-%d.jsonl", i, j)), st.index...)
						runPipeline(t, run)
					}
					records, collided := collisionState(t, cfg)
					if !slices.Equal(records, collided) {
						t.Errorf("collision records %v, row keys holding more than one tweet %v: want them equal", records, collided)
					}
					if got := len(records) == 1; got != c.record {
						t.Errorf("the pair's row key recorded: %v, want %v", got, c.record)
					}
				})
			}
		})
	}
}
