package job

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// TestCheckFindsAndRepairs indexes the sample, damages its tables as a
// lost write, a stray write or a rotten value would (a cell of each
// derived table gone, a value changed, cells of no stored tweet, counts
// wrong, missing and of no tweet, an identity row naming a lost tweet,
// edge weights wrong, missing and of no edge),
// and checks that Check finds each, no more, that a repair writes the
// tables back to what the run wrote, and that Check then finds nothing.
// On the store and on the CQL test server.
func TestCheckFindsAndRepairs(t *testing.T) {
	input := filepath.Join(repoRoot(t), "testdata", "sample", "*")
	for _, name := range []string{"store", "cassandra"} {
		t.Run(name, func(t *testing.T) {
			if name == "cassandra" && testing.Short() {
				t.Skip("-short: the full suite (make test) checks and repairs a keyspace on the CQL test server too")
			}
			cfg := pipelines.Config{Input: input, Store: filepath.Join(tempDir(t), "store")}
			if name == "cassandra" {
				_, cql := startCQL(t)
				cfg = pipelines.Config{Input: input, Cassandra: cql}
			}
			runPipeline(t, cfg)
			s, err := sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			want := dumpTables(t, s)

			rep, err := maintain.Check(ctx, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Problems() != 0 || rep.Tweets == 0 {
				t.Fatalf("the run's own tables: %d problems in %d tweets: %v", rep.Problems(), rep.Tweets, rep.Examples)
			}
			for table, c := range rep.Tables {
				if rows := strings.Count(want[table], "\n"); int64(rows) != c.Rows {
					t.Errorf("%s: Check read %d rows, dump %d", table, c.Rows, rows)
				}
			}

			// The damage, and what Check must find of it.
			// nth returns the table's nth cell, of those that have a value (an
			// identity row that is no tombstone, which Check cannot tell
			// from a stored tweet: it holds a delete).
			nth := func(table schemas.Table, n int) schemas.Cell {
				var c schemas.Cell
				i := 0
				err := s.Scan(ctx, table, nil, nil, func(key, value []byte) error {
					if table == schemas.TableIdentity && len(value) == 0 {
						return nil
					}
					if i == n {
						c = schemas.Cell{Table: table, Key: bytes.Clone(key), Value: bytes.Clone(value)}
					}
					i++
					return nil
				})
				if err != nil || c.Key == nil {
					t.Fatalf("cell %d of %s: %v (%d cells)", n, table.Name(), err, i)
				}
				return c
			}
			gone := func(c schemas.Cell) schemas.Cell { c.Delete, c.Value = true, nil; return c }
			// A text term row with positions, as a build before them wrote
			// it (none), is right; with other positions, wrong.
			var positioned schemas.TermRow
			for n := 50; !positioned.Positioned || len(positioned.Positions) == 0; n++ {
				c := nth(schemas.TableTerms, n)
				if positioned, err = schemas.DecodeTerm(c.Key, c.Value); err != nil {
					t.Fatal(err)
				}
			}
			earlier := positioned
			earlier.Positions, earlier.Positioned = nil, false
			if err := s.Write(ctx, []schemas.Cell{earlier.Cell()}); err != nil {
				t.Fatal(err)
			}
			if rep, err := maintain.Check(ctx, s, nil); err != nil || rep.Problems() != 0 {
				t.Fatalf("a term row without positions: %d problems (%v), %v", rep.Problems(), err, rep.Examples)
			}
			misplaced := positioned
			misplaced.Positions = []uint32{positioned.Positions[0] + 1000}
			lost := schemas.RowKey{0, 0, 0, 0, 0x6a, 0, 0, 0, 1, 2, 3, 4} // 2026-05, no tweet
			author := nth(schemas.TableAuthors, 5)
			author.Value = append(author.Value, 'x')
			freq := nth(schemas.TableFrequency, 3)
			freq.Value = []byte("999")
			weight := nth(schemas.TableEdgeDays, 4)
			weight.Value = []byte("999")
			damage := []schemas.Cell{
				gone(nth(schemas.TableTerms, 100)), gone(nth(schemas.TableGeo, 7)), gone(nth(schemas.TableEdges, 20)),
				gone(nth(schemas.TableAuthors, 9)), gone(nth(schemas.TableIdentity, 40)),
				author, misplaced.Cell(),
				schemas.TermRow{Term: "stray", Field: "text", Key: lost}.Cell(),
				schemas.EdgeRow{Type: schemas.EdgeMention, Source: "a", Target: "b", Key: lost, ID: 9}.Cell(),
				freq, gone(nth(schemas.TableFrequency, 11)),
				schemas.FrequencyRow{Minute: "202605010000", Lang: "en", Count: 2}.Cell(),
				schemas.IdentityRow{ID: 12345, Key: lost}.Cell(),
				weight, gone(nth(schemas.TableEdgeDays, 10)),
				schemas.EdgeDayRow{Type: schemas.EdgeReply, Day: 20000, Source: "a", Target: "b", Tweets: 2}.Cell(),
			}
			if err := s.Write(ctx, damage); err != nil {
				t.Fatal(err)
			}
			rep, err = maintain.Check(ctx, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			for table, w := range map[string]maintain.TableCheck{
				"terms": {Missing: 1, Wrong: 1, Orphans: 1}, "geo": {Missing: 1}, "edges": {Missing: 1, Orphans: 1},
				"authors": {Missing: 1, Wrong: 1}, "identity": {Missing: 1, Orphans: 1}, "frequency": {Missing: 1, Wrong: 1, Orphans: 1},
				"edgedays": {Missing: 1, Wrong: 1, Orphans: 1},
			} {
				g := rep.Tables[table]
				if g.Missing != w.Missing || g.Wrong != w.Wrong || g.Orphans != w.Orphans {
					t.Errorf("%s: found %+v, want %+v", table, g, w)
				}
			}
			if rep.Problems() != 16 || len(rep.Examples) != maintain.CheckExamples {
				t.Errorf("%d problems, %d examples, want 16 and %d: %q", rep.Problems(), len(rep.Examples), maintain.CheckExamples, rep.Examples)
			}

			rep, err = maintain.Check(ctx, s, s.Write)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Problems() != 16 || rep.Repaired != 16 {
				t.Errorf("repair: %d problems, %d cells repaired, want 16 and 16", rep.Problems(), rep.Repaired)
			}
			if rep, err = maintain.Check(ctx, s, nil); err != nil || rep.Problems() != 0 {
				t.Errorf("after the repair: %d problems (%v), %v", rep.Problems(), err, rep.Examples)
			}
			diffTables(t, want, dumpTables(t, s), "the run", "damaged, then repaired")
		})
	}
}

// TestCheckRemovesExtraVersions damages the sample's tables as builds
// before one id, one stored tweet could leave them: a tweet stored a
// second time under another row key (its created_at rewritten), with
// every cell of that version and its count, and a deleted tweet whose
// deletion reached another version but not the one stored (its identity
// row a tombstone, its cells all there). Check must find both versions,
// and a repair must leave the tables of a clean run with the deleted
// tweet forgotten. On the store and on the CQL test server.
func TestCheckRemovesExtraVersions(t *testing.T) {
	input := filepath.Join(repoRoot(t), "testdata", "sample", "*")
	for _, name := range []string{"store", "cassandra"} {
		t.Run(name, func(t *testing.T) {
			if name == "cassandra" && testing.Short() {
				t.Skip("-short: the full suite (make test) repairs a keyspace on the CQL test server too")
			}
			config := func() pipelines.Config {
				if name == "cassandra" {
					_, cql := startCQL(t)
					return pipelines.Config{Input: input, Cassandra: cql}
				}
				return pipelines.Config{Input: input, Store: filepath.Join(tempDir(t), "store")}
			}
			cfg, clean := config(), config()
			runPipeline(t, cfg)
			runPipeline(t, clean)
			ctx := context.Background()
			s, err := sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()

			// Two stored tweets: a, stored again under another row key, and
			// b, deleted.
			var stored []schemas.Tweet
			var dec schemas.Decoder
			err = s.Scan(ctx, schemas.TableRaw, nil, nil, func(key, value []byte) error {
				row, err := schemas.DecodeRaw(key, value)
				if err != nil {
					return err
				}
				var out schemas.Decoded
				dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: bytes.Clone(row.JSON)}, &out)
				if len(out.Tweets) == 1 && out.Tweets[0].HasPoint {
					tw := out.Tweets[0]
					tw.RowKey = row.Key
					stored = append(stored, tw)
				}
				return nil
			})
			if err != nil || len(stored) < 2 {
				t.Fatalf("geotagged stored tweets: %d (%v)", len(stored), err)
			}
			a, b := stored[0], stored[len(stored)-1]
			created := regexp.MustCompile(`("created_at"\s*:\s*"[^"]*?\d\d:\d\d:)(\d\d)`)
			m := created.FindSubmatchIndex(a.JSON)
			if m == nil {
				t.Fatalf("no created_at in %s", a.JSON)
			}
			sec := (int(a.JSON[m[4]]-'0')*10 + int(a.JSON[m[4]+1]-'0') + 7) % 60
			second := append(append(bytes.Clone(a.JSON[:m[4]]), fmt.Sprintf("%02d", sec)...), a.JSON[m[5]:]...)
			var out schemas.Decoded
			dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "second"}, Data: second}, &out)
			if len(out.Tweets) != 1 || out.Tweets[0].CreatedAt == a.CreatedAt || schemas.Minute(out.Tweets[0].CreatedAt) != schemas.Minute(a.CreatedAt) {
				t.Fatalf("the second version of %d: %+v", a.ID, out.Tweets)
			}
			a2 := out.Tweets[0]
			a2.RowKey = a2.Key()
			freq := schemas.FrequencyRow{Minute: schemas.Minute(a.CreatedAt), Lang: a.Lang}.Cell()
			count, ok, err := s.Lookup(ctx, schemas.TableFrequency, freq.Key)
			if err != nil || !ok {
				t.Fatalf("the count of tweet %d's minute: %v %v", a.ID, ok, err)
			}
			n, _ := strconv.Atoi(string(count))
			if n == 0 {
				n = 1
			}
			var damage []schemas.Cell
			for _, c := range transforms.DeriveTweet(transforms.RawCells(nil, []schemas.Tweet{a2}), &a2) {
				if c.Table != schemas.TableIdentity {
					damage = append(damage, c)
				}
			}
			damage = append(damage,
				schemas.FrequencyRow{Minute: schemas.Minute(a.CreatedAt), Lang: a.Lang, Count: int64(n + 1)}.Cell(),
				schemas.IdentityRow{ID: b.ID, Deleted: true}.Cell())
			if err := s.Write(ctx, damage); err != nil {
				t.Fatal(err)
			}

			rep, err := maintain.Check(ctx, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Tables["raw"].Versions; got != 2 {
				t.Errorf("raw: %d versions to remove, want 2: %v", got, rep.Examples)
			}
			if p := rep.Tables["identity"].Problems(); p != 0 {
				t.Errorf("identity: %d problems, want none (the one kept is named; the deleted tweet's tombstone stays): %v", p, rep.Examples)
			}
			for _, want := range []string{fmt.Sprintf("tweet %d is stored under", a.ID), fmt.Sprintf("tweet %d is deleted", b.ID)} {
				if !strings.Contains(strings.Join(rep.Examples, "\n"), want) {
					t.Errorf("no example says %q: %q", want, rep.Examples)
				}
			}
			found := rep.Problems()
			if rep, err = maintain.Check(ctx, s, s.Write); err != nil || rep.Problems() != found || rep.Repaired < found {
				t.Fatalf("repair: %d problems (check found %d), %d cells repaired: %v", rep.Problems(), found, rep.Repaired, err)
			}
			if rep, err = maintain.Check(ctx, s, nil); err != nil || rep.Problems() != 0 {
				t.Errorf("after the repair: %d problems (%v), %v", rep.Problems(), err, rep.Examples)
			}

			if _, err := forget(ctx, clean, maintain.IDList{IDs: []uint64{b.ID}}); err != nil {
				t.Fatal(err)
			}
			c, err := sink.Open(sink.Config{Store: clean.Store, Cassandra: clean.Cassandra})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			diffTables(t, dumpTables(t, c), dumpTables(t, s), "a clean run, the deleted tweet forgotten", "damaged, then repaired")
		})
	}
}
