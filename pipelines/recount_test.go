package pipelines

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestRecountReadsAuthorsOrRaw: the recount of marked minutes reads each
// minute's languages from the authors table when the sink has one for
// every stored tweet (param/authors), from the raw rows otherwise (a sink
// indexed before the authors table existed), and both give the counts of
// one clean run. The sample (many languages, "und" for the missing and
// implausible ones) is indexed; then every minute is marked, its counts
// are spoiled (each cell set to 999, a language no tweet has added) and
// recounted. To tell which table was read, the authors cells are also
// given another language ("xx"): the recount then follows the authors
// table if the sink has the parameter and the raw rows if not. Store and
// CQL test server. Before, every recount decoded the raw JSON.
func TestRecountReadsAuthorsOrRaw(t *testing.T) {
	ctx := context.Background()
	base, _ := indexSample(t)
	want := dumpStore(t, base)["frequency"]
	cells := allCells(t, base)
	// Every minute the sample counts, its tweets in all, and the cells
	// that mark, spoil and relabel it.
	perMinute := map[string]int64{}
	var spoil []schemas.Cell
	for _, r := range rows(t, want) {
		m := r["minute"].(string)
		if _, ok := perMinute[m]; !ok {
			spoil = append(spoil,
				schemas.MetaRow{Name: schemas.RecountPrefix + m}.Cell(),
				schemas.FrequencyRow{Minute: m, Lang: "zz-none", Count: 7}.Cell())
		}
		perMinute[m] += int64(r["count"].(float64))
		spoil = append(spoil, schemas.FrequencyRow{Minute: m, Lang: r["lang"].(string), Count: 999}.Cell())
	}
	if len(perMinute) < 3 {
		t.Fatalf("the sample counts %d minutes: too few", len(perMinute))
	}
	var relabel []schemas.Cell
	for _, c := range cells {
		if c.Table == schemas.TableAuthors {
			a, err := schemas.DecodeAuthor(c.Key, c.Value)
			if err != nil {
				t.Fatal(err)
			}
			a.Lang = "xx"
			relabel = append(relabel, a.Cell())
		}
	}
	if len(relabel) == 0 {
		t.Fatal("the sample's store has no authors cells")
	}
	// What the recount gives when it reads the relabelled authors table.
	var relabelled map[string]string
	{
		var b []schemas.Cell
		for m, n := range perMinute {
			b = append(b, schemas.FrequencyRow{Minute: m, Lang: "xx", Count: n}.Cell())
		}
		d := filepath.Join(tempDir(t), "relabelled")
		s, err := sink.Open(sink.Config{Store: d, Create: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
		relabelled = dumpTables(t, s)
		s.Close()
	}
	noParam := schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.AuthorsParam), Delete: true}

	cases := []struct {
		name    string
		param   bool // the sink has param/authors
		relabel bool // the authors cells say "xx"
		want    string
	}{
		{"authors table", true, false, want},
		{"raw rows (an old sink)", false, false, want},
		{"authors table, relabelled", true, true, relabelled["frequency"]},
		{"raw rows, authors relabelled", false, true, want},
	}
	sinks := []struct {
		name string
		open func(t *testing.T, i int) Config
	}{
		{"store", func(t *testing.T, i int) Config {
			d := filepath.Join(tempDir(t), fmt.Sprintf("case%d", i))
			copyDir(t, base, d)
			return Config{Store: d}
		}},
		{"cassandra", func(t *testing.T, _ int) Config {
			_, ccfg := startCQL(t)
			s, err := sink.Open(sink.Config{Cassandra: ccfg})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Write(ctx, cells); err != nil {
				t.Fatal(err)
			}
			return Config{Cassandra: ccfg}
		}},
	}
	for _, sk := range sinks {
		t.Run(sk.name, func(t *testing.T) {
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					cfg := sk.open(t, i)
					s, err := openSink(cfg)
					if err != nil {
						t.Fatal(err)
					}
					change := spoil
					if !c.param {
						change = append(change, noParam)
					}
					if c.relabel {
						change = append(change, relabel...)
					}
					err = s.Write(ctx, change)
					s.Close()
					if err != nil {
						t.Fatal(err)
					}
					n, err := recountMarked(ctx, cfg)
					if err != nil {
						t.Fatal(err)
					}
					if n != len(perMinute) {
						t.Errorf("recounted %d minutes, want the %d marked", n, len(perMinute))
					}
					s, err = openSink(cfg)
					if err != nil {
						t.Fatal(err)
					}
					got := dumpTables(t, s)["frequency"]
					s.Close()
					if got != c.want {
						t.Errorf("frequency table after the recount:\n%s\nwant:\n%s", got, c.want)
					}
				})
			}
		})
	}
}

var benchRecountStore = flag.String("bench.recount.store", "", "BenchmarkRecount's store (indexed with the authors table), e.g. of the 100K bench tweets")

// BenchmarkRecount times the recount of marked minutes (maintain.RecountMarked) on
// the store -bench.recount.store: every minute its frequency table counts
// is marked and recounted, reading the authors table ("authors") or,
// param/authors taken away for the while, the raw rows' JSON ("raw", as a
// store indexed before the authors table exists does). It reports the
// stored tweets recounted per second, and checks that the frequency table
// is what it was. Not part of make test:
//
//	go test -run '^$' -bench BenchmarkRecount -benchtime 5x ./pipelines/ -args -bench.recount.store DIR
func BenchmarkRecount(b *testing.B) {
	if *benchRecountStore == "" {
		b.Skip("-bench.recount.store DIR: a store to recount")
	}
	ctx := context.Background()
	cfg := Config{Store: *benchRecountStore}
	before := dumpStore(b, cfg.Store)["frequency"]
	var marks []schemas.Cell
	var tweets int64
	seen := map[string]bool{}
	s, err := openSink(cfg)
	if err != nil {
		b.Fatal(err)
	}
	err = s.ScanAll(ctx, schemas.TableFrequency, func(key, value []byte) error {
		r, err := schemas.DecodeFrequency(key, value)
		if err != nil {
			return err
		}
		tweets += r.Count
		if !seen[r.Minute] {
			seen[r.Minute] = true
			marks = append(marks, schemas.MetaRow{Name: schemas.RecountPrefix + r.Minute}.Cell())
		}
		return nil
	})
	param, hasParam, perr := s.Lookup(ctx, schemas.TableMeta, []byte(schemas.AuthorsParam))
	s.Close()
	if err != nil || perr != nil {
		b.Fatal(err, perr)
	}
	if !hasParam {
		b.Fatalf("store %s has no %s: index it with this build", cfg.Store, schemas.AuthorsParam)
	}
	write := func(cells ...schemas.Cell) {
		s, err := openSink(cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if err := s.Write(ctx, cells); err != nil {
			b.Fatal(err)
		}
	}
	for _, mode := range []string{"authors", "raw"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "raw" {
				write(schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.AuthorsParam), Delete: true})
				defer write(schemas.MetaRow{Name: schemas.AuthorsParam, Value: param}.Cell())
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				write(marks...)
				b.StartTimer()
				n, err := recountMarked(ctx, cfg)
				if err != nil {
					b.Fatal(err)
				}
				if n != len(marks) {
					b.Fatalf("recounted %d minutes, want %d", n, len(marks))
				}
			}
			b.ReportMetric(float64(tweets)*float64(b.N)/b.Elapsed().Seconds(), "tweets/s")
			b.ReportMetric(float64(len(marks)), "minutes")
		})
	}
	if after := dumpStore(b, cfg.Store)["frequency"]; after != before {
		b.Errorf("the recounts changed the frequency table")
	}
}
