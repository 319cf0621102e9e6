package archiveio

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/dsnet/compress/bzip2"

	"github.com/tweetindex/tweetindex/schemas"
)

// benchText is about 12 MB of realistic ~3 KB tweet lines.
var benchText = randomTweets(4000, 3000, 42)

// BenchmarkReadFile reads one file of ~3 KB JSON lines per format and
// reports the throughput of decompressed record bytes.
func BenchmarkReadFile(b *testing.B) {
	text := string(benchText)
	formats := []struct {
		name, file string
		data       func(testing.TB) []byte
	}{
		{"plain", "t.json", func(testing.TB) []byte { return benchText }},
		{"gzip", "t.json.gz", func(t testing.TB) []byte { return gz(t, text) }},
		{"bzip2", "t.json.bz2", func(t testing.TB) []byte { return bz2(t, text) }},
		{"zstd", "t.json.zst", func(t testing.TB) []byte { return zst(t, text) }},
		{"tar-of-gzip", "t.tar", func(t testing.TB) []byte {
			// The stream-grab layout: per-minute members.
			var ms []member
			chunk := len(benchText) / 10
			for i := 0; i < 10; i++ {
				lo, hi := i*chunk, (i+1)*chunk
				if i == 9 {
					hi = len(benchText)
				}
				ms = append(ms, member{fmt.Sprintf("%02d.json.gz", i), gz(t, text[lo:hi])})
			}
			return tarOf(t, ms...)
		}},
	}
	for _, f := range formats {
		b.Run(f.name, func(b *testing.B) {
			path := writeFile(b, b.TempDir(), f.file, f.data(b))
			b.SetBytes(int64(len(benchText)))
			b.ReportAllocs()
			var recs int64
			for b.Loop() {
				st, err := ReadFile(context.Background(), path, Options{}, func([]schemas.Record) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				recs += st.Records
			}
			b.ReportMetric(float64(recs)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkBzip2 compares the two bzip2 decoders on the same stream; the
// faster one (github.com/dsnet/compress/bzip2) is the one ReadFile uses.
func BenchmarkBzip2(b *testing.B) {
	z := bz2(b, string(benchText))
	decoders := []struct {
		name string
		new  func(io.Reader) io.Reader
	}{
		{"dsnet", func(r io.Reader) io.Reader { zr, _ := bzip2.NewReader(r, nil); return zr }},
		{"stdlib", stdbzip2.NewReader},
	}
	for _, d := range decoders {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(benchText)))
			for b.Loop() {
				n, err := io.Copy(io.Discard, d.new(bytes.NewReader(z)))
				if err != nil || n != int64(len(benchText)) {
					b.Fatalf("decoded %d bytes, %v", n, err)
				}
			}
		})
	}
}
