package archiveio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

func init() {
	register.DoFn2x0[[]schemas.Record, func(string)](&flattenFn{})
}

func TestMain(m *testing.M) {
	ptest.Main(m)
}

// flattenFn renders each record of a batch as "BASE:LINE:DATA:FAULT".
type flattenFn struct{}

func (flattenFn) ProcessElement(batch []schemas.Record, emit func(string)) {
	for _, r := range batch {
		emit(fmt.Sprintf("%s:%d:%s:%s", filepath.Base(r.Origin.Source), r.Origin.Line, r.Data, r.Fault))
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	a, b, c := tweetLines(1, 3), tweetLines(4, 2), tweetLines(6, 2)
	writeFile(t, dir, "in/a.json", []byte(a))
	writeFile(t, dir, "in/b.json.gz", gz(t, b))
	writeFile(t, dir, "in/sub/c.tar", tarOf(t, member{"c.json.bz2", bz2(t, c)}))
	writeFile(t, dir, "in/sub/d.json.gz", gz(t, a)[:10])

	var want []any
	for _, f := range []struct{ name, text string }{{"a.json", a}, {"b.json.gz", b}, {"c.tar!c.json.bz2", c}} {
		for _, r := range linesOf(f.name, 1, f.text) {
			want = append(want, fmt.Sprintf("%s:%d:%s:", r.Source, r.Line, r.Data))
		}
	}
	want = append(want, "d.json.gz:1::truncated gzip stream: unexpected EOF")

	wantBytes := int64(len(a) + len(gz(t, b)) + len(tarOf(t, member{"c.json.bz2", bz2(t, c)})) + 10)
	for _, paced := range []bool{false, true} {
		t.Run(fmt.Sprintf("paced=%v", paced), func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			batches := Read(s, filepath.Join(dir, "in", "**"), Options{BatchRecords: 2, Paced: paced})
			// A PCollection's String ends in ":unbounded}" when it is: a
			// reader that checkpoints is, one that reads a file in one
			// call is not (a batch job on Flink and Dataflow).
			if unbounded := strings.HasSuffix(batches.String(), ":unbounded}"); unbounded != paced {
				t.Errorf("Read's output unbounded = %v, want %v", unbounded, paced)
			}
			passert.Equals(s, beam.ParDo(s, &flattenFn{}, batches), want...)
			res, err := ptest.RunWithMetrics(p)
			if err != nil {
				t.Fatalf("pipeline failed: %v", err)
			}
			counters := map[string]int64{}
			for _, c := range res.Metrics().AllMetrics().Counters() {
				if c.Key.Namespace == "tweetindex" {
					counters[c.Key.Name] += c.Committed
				}
			}
			if counters[CounterFilesRead] != 4 || counters[CounterBytesRead] != wantBytes {
				t.Errorf("counters = %v, want files_read 4, bytes_read %d", counters, wantBytes)
			}
		})
	}
}

func TestReadNoMatch(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	pattern := filepath.Join(t.TempDir(), "*.json")
	Read(s, pattern, Options{})
	err := ptest.Run(p)
	if err == nil || !strings.Contains(err.Error(), "no files match") {
		t.Fatalf("pipeline error = %v, want one saying no files match %q", err, pattern)
	}
}

// TestReadFnUnopenable checks that a file that cannot be opened becomes a
// faulted record at line 0 rather than a failure, in either reader.
func TestReadFnUnopenable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone.json")
	for _, paced := range []bool{false, true} {
		var got [][]schemas.Record
		emit := func(b []schemas.Record) { got = append(got, b) }
		base := &readBaseFn{}
		rt := base.CreateTracker(base.CreateInitialRestriction(path))
		var err error
		resume := false
		if paced {
			var pc sdf.ProcessContinuation
			pc, err = (&pacedReadFn{readBaseFn: *base}).ProcessElement(context.Background(), rt, path, emit)
			resume = pc.ShouldResume()
		} else {
			err = (&boundedReadFn{*base}).ProcessElement(context.Background(), rt, path, emit)
		}
		if err != nil {
			t.Fatal(err)
		}
		if resume || !rt.IsDone() {
			t.Errorf("paced %v: read of a missing file not done: resume %v, tracker done %v", paced, resume, rt.IsDone())
		}
		if len(got) != 1 || len(got[0]) != 1 {
			t.Fatalf("paced %v: emitted %v, want one batch of one record", paced, got)
		}
		r := got[0][0]
		if r.Origin != (schemas.Origin{Source: path}) || !strings.Contains(r.Fault, "no such file") || r.Data != nil {
			t.Errorf("paced %v: record = %+v, want a fault at %s:0", paced, r, path)
		}
	}
}

// TestReadFnResumes reads a file of many batches bundle by bundle, as a
// runner does after each checkpoint, once resuming from the parked cursor
// and once from a fresh process (no cursor), and checks that every record
// is emitted once, in order.
func TestReadFnResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "many.jsonl")
	var data []byte
	const lines = 50
	for i := 1; i <= lines; i++ {
		data = append(data, fmt.Sprintf("{\"n\":%d}\n", i)...)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fresh := range []bool{false, true} {
		fn := &pacedReadFn{readBaseFn: readBaseFn{Options: Options{BatchRecords: 3}}}
		rest := fn.CreateInitialRestriction(path)
		var lineNos []int64
		for bundles := 0; ; bundles++ {
			if bundles > lines {
				t.Fatal("read does not end")
			}
			if fresh {
				cursorsMu.Lock()
				for p, c := range cursors {
					delete(cursors, p)
					c.close()
				}
				cursorsMu.Unlock()
			}
			rt := fn.CreateTracker(rest)
			pc, err := fn.ProcessElement(context.Background(), rt, path, func(b []schemas.Record) {
				for _, r := range b {
					lineNos = append(lineNos, r.Origin.Line)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !pc.ShouldResume() {
				break
			}
			_, residual, err := rt.TrySplit(0)
			if err != nil || residual == nil {
				t.Fatalf("checkpoint: residual %v, err %v", residual, err)
			}
			rest = residual.(offsetrange.Restriction)
		}
		if len(lineNos) != lines {
			t.Fatalf("fresh=%v: read %d records, want %d", fresh, len(lineNos), lines)
		}
		for i, l := range lineNos {
			if l != int64(i+1) {
				t.Fatalf("fresh=%v: record %d is line %d", fresh, i, l)
			}
		}
	}
}

// TestReadBoundsOpenFiles reads more files than a process may read at
// once, each long enough to be parked between bundles, with local flow
// control on (as in-process runs have it): every record arrives, and no
// more than maxOpenCursors files were open at any time.
func TestReadBoundsOpenFiles(t *testing.T) {
	flow.EnableLocalFlowControl()
	dir := t.TempDir()
	files := int(maxOpenCursors) + 4
	var want []any
	for i := range files {
		name := fmt.Sprintf("f%02d.json", i)
		text := tweetLines(100*i+1, 4*DefaultBundleBatches+3) // more batches of 2 than a bundle reads
		writeFile(t, dir, "in/"+name, []byte(text))
		for _, r := range linesOf(name, 1, text) {
			want = append(want, fmt.Sprintf("%s:%d:%s:", r.Source, r.Line, r.Data))
		}
	}
	peakOpenCursors.Store(0)
	p, s := beam.NewPipelineWithRoot()
	batches := Read(s, filepath.Join(dir, "in", "*"), Options{BatchRecords: 2, Paced: true})
	passert.Equals(s, beam.ParDo(s, &flattenFn{}, batches), want...)
	if err := ptest.Run(p); err != nil {
		t.Fatalf("pipeline failed: %v", err)
	}
	if peak := peakOpenCursors.Load(); peak > maxOpenCursors || peak == 0 {
		t.Errorf("%d files open at once at most, want 1..%d", peak, maxOpenCursors)
	}
}
