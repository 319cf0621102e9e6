package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// TestTokenizerVersionRecorded: a run into a fresh sink records this
// build's tokenizer version (param/tokenizer); a second run of the same
// version adds to it; a run into a sink indexed with another version, or
// before versions were recorded (no row), is refused before anything is
// written, in one line naming what to do, unless told to mix them
// (MixTokenizers), when the row records both versions; a sink that
// already mixes this build's version takes the run as it is. Store and
// CQL test server.
func TestTokenizerVersionRecorded(t *testing.T) {
	ctx := context.Background()
	v := transforms.TokenizerVersion
	other := v + 1
	row := func(val schemas.TokenizerValue) *schemas.Cell { c := val.Cell(); return &c }
	noRow := &schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.TokenizerParam), Delete: true}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		first   bool          // a run indexes tweets before the one tested
		set     *schemas.Cell // then the row is set (or deleted) so
		mix     bool          // the run tested has MixTokenizers
		refused string        // the run is refused with this in its one line ("": it runs)
		want    string        // the row after ("": none)
	}{
		{name: "fresh sink", want: fmt.Sprintf(`{"version":%d}`, v)},
		{name: "same version again", first: true, want: fmt.Sprintf(`{"version":%d}`, v)},
		{name: "another version", first: true, set: row(schemas.TokenizerValue{Version: other}),
			refused: fmt.Sprintf("holds tweets indexed with tokenizer version %d, and this build's tokenizer is version %d", other, v),
			want:    fmt.Sprintf(`{"version":%d}`, other)},
		{name: "another version, mixed", first: true, set: row(schemas.TokenizerValue{Version: other}), mix: true,
			want: fmt.Sprintf(`{"version":%d,"versions":[%d,%d]}`, v, v, other)},
		{name: "before versions were recorded", first: true, set: noRow,
			refused: "holds tweets indexed before tokenizer versions were recorded (no param/tokenizer row)"},
		{name: "before versions were recorded, mixed", first: true, set: noRow, mix: true,
			want: fmt.Sprintf(`{"version":%d,"versions":[0,%d]}`, v, v)},
		{name: "already mixed", first: true, set: row(schemas.TokenizerValue{Version: other, Versions: []int{v, other}}),
			want: fmt.Sprintf(`{"version":%d,"versions":[%d,%d]}`, other, v, other)},
		{name: "no tweet yet, another version's row", set: row(schemas.TokenizerValue{Version: other}),
			want: fmt.Sprintf(`{"version":%d}`, v)},
	}
	for _, kind := range sinkKinds {
		t.Run(kind.name, func(t *testing.T) {
			dir := tempDir(t)
			newSink := kind.sinks(dir)
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					cfg, _ := newSink(t, fmt.Sprintf("case%d", i))
					in := filepath.Join(dir, fmt.Sprintf("case%d-", i))
					for j, name := range []string{"first", "second"} {
						line := v1Tweet(snowflake(at, i*2+j), at.Add(time.Duration(i*2+j)*time.Second), fmt.Sprintf("the %s run's tweet of case %d", name, i), 0, 0)
						if err := os.WriteFile(in+name+".jsonl", []byte(line+"\n"), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					if c.first {
						first := cfg
						first.Input = in + "first.jsonl"
						runPipeline(t, first)
					}
					s, err := openSink(cfg)
					if err != nil {
						t.Fatal(err)
					}
					if c.set != nil {
						if err := s.Write(ctx, []schemas.Cell{*c.set}); err != nil {
							t.Fatal(err)
						}
					}
					runs, err := readRunRecords(ctx, s)
					s.Close()
					if err != nil {
						t.Fatal(err)
					}
					run := cfg
					run.Input, run.MixTokenizers = in+"second.jsonl", c.mix
					sum, err := Run(ctx, run)
					var mixErr *TokenizerMixError
					switch {
					case c.refused == "" && err != nil:
						t.Fatalf("run: %v", err)
					case c.refused == "" && sum.Indexed != 1:
						t.Errorf("run indexed %d tweets, want 1", sum.Indexed)
					case c.refused != "" && !errors.As(err, &mixErr):
						t.Fatalf("run: error %v, want a *TokenizerMixError", err)
					case c.refused != "":
						msg := err.Error()
						if !strings.Contains(msg, c.refused) || !strings.Contains(msg, "index into a fresh store or keyspace, or pass --mix-tokenizers") || strings.Contains(msg, "\n") {
							t.Errorf("refusal %q: want one line with %q, saying to index into a fresh store or pass --mix-tokenizers", msg, c.refused)
						}
					}
					s, err = sink.Open(sink.Config{Store: cfg.Store, Cassandra: cfg.Cassandra})
					if err != nil {
						t.Fatal(err)
					}
					defer s.Close()
					got, ok, err := s.Lookup(ctx, schemas.TableMeta, []byte(schemas.TokenizerParam))
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						got = nil
					}
					if string(got) != c.want {
						t.Errorf("%s after the run: %s, want %q", schemas.TokenizerParam, got, c.want)
					}
					after, err := readRunRecords(ctx, s)
					if err != nil {
						t.Fatal(err)
					}
					if wantRuns := len(runs) + 1; c.refused != "" && len(after) != len(runs) || c.refused == "" && len(after) != wantRuns {
						t.Errorf("%d run records after the run, %d before: a refused run records nothing, another one itself", len(after), len(runs))
					}
				})
			}
		})
	}
}
