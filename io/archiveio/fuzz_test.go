package archiveio

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// FuzzReadFile reads any bytes as a file (named by its first byte's pick
// of extension, which decides only when no magic number does): format
// detection, decompression, tar and zip, lines or document. What must hold:
// no panic and no error (damage is reported in band), the statistics count
// the records handed over, every record within its size limit, and the
// lines of each source in increasing order. Seeds: small files of every
// format and the start of each committed sample file. Run at length with
// make fuzz.
func FuzzReadFile(f *testing.F) {
	lines := tweetLines(1, 3)
	for _, seed := range [][]byte{
		[]byte(lines),
		[]byte("{\"id\":\n{\"text\": \"x\n" + lines),
		[]byte("[\n" + `{"id_str":"1"},` + "\n" + `{"id_str":"2"}` + "\n]\n"),
		[]byte("window.YTD.tweets.part0 = [\n{}\n]"),
		gz(f, lines),
		bz2(f, lines),
		zst(f, lines),
		tarOf(f, member{"a/b.json", []byte(lines)}, member{"c.json.gz", gz(f, lines)}),
		zipOf(f, member{"a.json", []byte(lines)}, member{"b.txt", []byte("[1,2,3]\n")}),
		gz(f, lines)[:20],
	} {
		f.Add(byte(0), seed)
	}
	entries, _ := os.ReadDir(filepath.Join("..", "..", "testdata", "sample"))
	for i, e := range entries {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(byte(i), data[:min(len(data), 4<<10)])
	}
	exts := []string{".json", ".jsonl", ".gz", ".bz2", ".zst", ".tar", ".zip", ".js"}
	// One directory for every input of this process (a fuzzing worker runs
	// its inputs one at a time): t.TempDir per input (a mkdir and a
	// removal of a directory named after the test) was a good part of an
	// input's cost, and the fuzzing engine minimizes every new input by
	// running it thousands of times.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, ext byte, data []byte) {
		path := filepath.Join(dir, "f"+exts[int(ext)%len(exts)])
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		opts := Options{BatchRecords: 7, BatchBytes: 1 << 10, MaxRecordBytes: 4 << 10, MaxDocumentBytes: 64 << 10}
		var n, faults int64
		last := map[string]int64{}
		st, err := ReadFile(context.Background(), path, opts, func(recs []schemas.Record) error {
			for _, r := range recs {
				n++
				if r.Fault != "" {
					faults++
				}
				if len(r.Data) > max(opts.MaxRecordBytes+1, opts.MaxDocumentBytes) {
					t.Fatalf("record %v of %d bytes", r.Origin, len(r.Data))
				}
				if l, ok := last[r.Origin.Source]; ok && r.Origin.Line < l {
					t.Fatalf("%s: line %d after line %d", r.Origin.Source, r.Origin.Line, l)
				}
				last[r.Origin.Source] = r.Origin.Line
			}
			return nil
		})
		if err != nil {
			t.Fatalf("ReadFile: %v", err)
		}
		if st.Records != n || st.Faults != faults {
			t.Fatalf("stats %+v, handed over %d records, %d faulted", st, n, faults)
		}
	})
}
