package archiveio

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsnet/compress/bzip2"
	"github.com/klauspost/compress/zstd"

	"github.com/tweetindex/tweetindex/schemas"
)

// tweetLines returns n JSON lines, each holding its own number, with a
// trailing newline.
func tweetLines(first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `{"id_str":"%d","text":"tweet %d"}`+"\n", i, i)
	}
	return b.String()
}

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func bz2(t testing.TB, s string) []byte {
	t.Helper()
	return bz2Level(t, s, 9)
}

// bz2Level compresses s with bzip2 blocks of level*100 kB.
func bz2Level(t testing.TB, s string, level int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := bzip2.NewWriter(&b, &bzip2.WriterConfig{Level: level})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zst(t testing.TB, s string) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll([]byte(s), nil)
}

// member is a file inside a test archive.
type member struct {
	name string
	data []byte
}

func tarOf(t testing.TB, ms ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, m := range ms {
		if strings.HasSuffix(m.name, "/") {
			if err := w.WriteHeader(&tar.Header{Name: m.name, Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := w.WriteHeader(&tar.Header{Name: m.name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(m.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zipOf builds a zip archive; members ending in ".json" are deflated, others
// stored.
func zipOf(t testing.TB, ms ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, m := range ms {
		method := zip.Store
		if strings.HasSuffix(m.name, ".json") {
			method = zip.Deflate
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rec is a record as the tests compare it: Source relative to the test's
// directory.
type rec struct {
	Source string
	Line   int64
	Data   string
	Fault  string
}

func (r rec) String() string {
	d := r.Data
	if len(d) > 60 {
		d = d[:60] + fmt.Sprintf("...(%d bytes)", len(r.Data))
	}
	return fmt.Sprintf("%s:%d %q fault=%q", r.Source, r.Line, d, r.Fault)
}

// readAll reads path with ReadFile and returns its records and batches.
// The batches are only inspected after the whole file was read, so a
// reader that reused a batch or its data would fail the comparison.
func readAll(t testing.TB, dir, path string, opts Options) ([]rec, [][]schemas.Record, Stats, error) {
	t.Helper()
	var batches [][]schemas.Record
	st, err := ReadFile(context.Background(), path, opts, func(b []schemas.Record) error {
		batches = append(batches, b)
		return nil
	})
	var recs []rec
	for _, b := range batches {
		for _, r := range b {
			src, _ := filepath.Rel(dir, r.Origin.Source)
			recs = append(recs, rec{Source: src, Line: r.Origin.Line, Data: string(r.Data), Fault: r.Fault})
		}
	}
	return recs, batches, st, err
}

// linesOf returns the records of text's lines in source, numbered from first.
func linesOf(source string, first int64, text string) []rec {
	var out []rec
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		out = append(out, rec{Source: source, Line: first + int64(i), Data: l})
	}
	return out
}

func concat(parts ...[]rec) []rec {
	var out []rec
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// randomTweets returns n JSON lines of about size bytes each, with words
// drawn from a small vocabulary so that they compress like real tweets.
func randomTweets(n, size int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	words := strings.Fields("the a of and to in is you that it he was for on are as with his they at be this from I have or by one had not but what all were when we there can an your which their said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know get through back much before go good new write our used me man too any day same right look think also around another came come work three word must because does part even place well such here take why things help put years different away again off went old number great tell men say small every found still between name should home big give air line set own under read last never us left end along while might next sound below saw something thought both few those always looked show large often together asked house don't world going want school important until form food keep children feet land side without boy once animals life enough took sometimes four head above kind began almost live page got earth need far hand high year mother light parts country father let night following picture being study second eyes soon times story boys since white days ever paper hard near sentence better best across during today others however sure means knew try told young miles sun ways thing whole hear example heard several change answer room sea against top turned learn point city play toward five using himself usually")
	var b bytes.Buffer
	for i := range n {
		start := b.Len()
		fmt.Fprintf(&b, `{"created_at":"Wed Oct 10 20:%02d:%02d +0000 2018","id":%d,"id_str":"%d","text":"`, i/60%60, i%60, 1050118621198921728+i, 1050118621198921728+i)
		for b.Len()-start < size/3 {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, `","user":{"id_str":"%d","name":"user %d","screen_name":"u%d","description":"`, rng.Uint32(), rng.IntN(1e6), rng.IntN(1e6))
		for b.Len()-start < size-40 {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, `"},"lang":"en","n":%d}`+"\n", rng.Uint64())
	}
	return b.Bytes()
}
