package archiveio

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

func TestReadFile(t *testing.T) {
	a, b, c := tweetLines(1, 3), tweetLines(4, 2), tweetLines(6, 4)
	search, err := json.MarshalIndent(map[string]any{
		"statuses": []map[string]any{
			{"id_str": "1", "text": "first", "user": map[string]any{"screen_name": "u1"}},
			{"id_str": "2", "text": "second"},
		},
		"search_metadata": map[string]any{"count": 2, "query": "q"},
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tweetsJS := "window.YTD.tweets.part0 = [\n  {\n    \"tweet\" : {\n      \"id_str\" : \"7\"\n    }\n  }\n]"
	array := "\n  [\n  {\"id_str\": \"1\"},\n  {\"id_str\": \"2\"}\n]\n"
	long := `{"text":"` + strings.Repeat("x", 3000) + `"}`

	tests := []struct {
		name  string
		opts  Options
		file  string                                  // written under the test's directory
		data  func(t *testing.T) []byte               // the file's contents
		want  []rec                                   // Source relative to the directory
		check func(t *testing.T, got []rec, st Stats) // optional extra checks
	}{
		{
			name: "plain lines",
			file: "a.json",
			data: func(*testing.T) []byte { return []byte(a) },
			want: linesOf("a.json", 1, a),
		},
		{
			name: "CRLF",
			file: "crlf.json",
			data: func(*testing.T) []byte { return []byte("{\"id\":1}\r\n{\"id\":2}\r\n") },
			want: []rec{{"crlf.json", 1, `{"id":1}`, ""}, {"crlf.json", 2, `{"id":2}`, ""}},
		},
		{
			name: "blank lines and no final newline",
			file: "blank.json",
			data: func(*testing.T) []byte { return []byte("\n{\"id\":1}\n\n\r\n{\"id\":2}") },
			want: []rec{{"blank.json", 1, "", ""}, {"blank.json", 2, `{"id":1}`, ""}, {"blank.json", 3, "", ""}, {"blank.json", 4, "", ""}, {"blank.json", 5, `{"id":2}`, ""}},
		},
		{
			name: "empty file",
			file: "empty.json",
			data: func(*testing.T) []byte { return nil },
			want: nil,
		},
		{
			name: "broken first line stays JSON lines",
			file: "broken.json",
			data: func(*testing.T) []byte { return []byte("{\"id\":\n" + a) },
			want: concat([]rec{{"broken.json", 1, `{"id":`, ""}}, linesOf("broken.json", 2, a)),
		},
		{
			name: "two broken first lines stay JSON lines",
			file: "broken2.json",
			data: func(*testing.T) []byte { return []byte("{\"id\":\n{\"text\": \"x\n" + a) },
			want: concat([]rec{{"broken2.json", 1, `{"id":`, ""}, {"broken2.json", 2, `{"text": "x`, ""}}, linesOf("broken2.json", 3, a)),
		},
		{
			name: "broken lines that nest stay JSON lines",
			file: "nest.json",
			data: func(*testing.T) []byte { return []byte("{\"a\":\n{\"b\":[\n" + a) },
			want: concat([]rec{{"nest.json", 1, `{"a":`, ""}, {"nest.json", 2, `{"b":[`, ""}}, linesOf("nest.json", 3, a)),
		},
		{
			name: "broken lines that nest to the end stay JSON lines",
			file: "nest2.json",
			data: func(*testing.T) []byte { return []byte("{\"a\":\n{\"b\":1}\n") },
			want: []rec{{"nest2.json", 1, `{"a":`, ""}, {"nest2.json", 2, `{"b":1}`, ""}},
		},
		{
			name: "NUL on line 1 stays JSON lines",
			file: "nul.json",
			data: func(*testing.T) []byte { return []byte("\x00\x00\n\x00{\n" + a) },
			want: concat([]rec{{"nul.json", 1, "\x00\x00", ""}, {"nul.json", 2, "\x00{", ""}}, linesOf("nul.json", 3, a)),
		},
		{
			name: "random bytes are lines",
			file: "random.bin",
			data: func(*testing.T) []byte { return []byte("\x93\x01[\xff\n\x7f{\x02\n\x00\n") },
			want: []rec{{"random.bin", 1, "\x93\x01[\xff", ""}, {"random.bin", 2, "\x7f{\x02", ""}, {"random.bin", 3, "\x00", ""}},
		},
		{
			name: "a document followed by more is lines",
			file: "docmore.json",
			data: func(*testing.T) []byte { return []byte("{\n\"a\": 1\n}\n" + a) },
			want: concat([]rec{{"docmore.json", 1, "{", ""}, {"docmore.json", 2, `"a": 1`, ""}, {"docmore.json", 3, "}", ""}}, linesOf("docmore.json", 4, a)),
		},
		{
			name: "broken first lines of a long file stay JSON lines",
			file: "brokenlong.json.gz",
			data: func(t *testing.T) []byte { return gz(t, "[{\"id\":\n[\n"+tweetLines(1, 2000)) },
			check: func(t *testing.T, got []rec, st Stats) {
				if len(got) != 2002 || got[0].Data != `[{"id":` || got[2].Data != strings.SplitN(tweetLines(1, 1), "\n", 2)[0] {
					t.Errorf("%d records, first %v, want 2002 lines", len(got), got[:min(3, len(got))])
				}
			},
		},
		{
			name: "gzip",
			file: "a.json.gz",
			data: func(t *testing.T) []byte { return gz(t, a) },
			want: linesOf("a.json.gz", 1, a),
		},
		{
			name: "gzip without extension",
			file: "noext",
			data: func(t *testing.T) []byte { return gz(t, a) },
			want: linesOf("noext", 1, a),
		},
		{
			name: "gzip multi-member",
			file: "multi.json.gz",
			data: func(t *testing.T) []byte { return slices.Concat(gz(t, a), gz(t, b), gz(t, c)) },
			want: linesOf("multi.json.gz", 1, a+b+c),
		},
		{
			name: "gzip truncated after a member header",
			file: "trunc.json.gz",
			data: func(t *testing.T) []byte { return slices.Concat(gz(t, a), gz(t, b)[:10]) },
			want: concat(linesOf("trunc.json.gz", 1, a), []rec{{"trunc.json.gz", 4, "", "truncated gzip stream: unexpected EOF"}}),
		},
		{
			name: "gzip bad checksum",
			file: "crc.json.gz",
			data: func(t *testing.T) []byte {
				z := gz(t, a)
				z[len(z)-8] ^= 0xff // CRC-32 of the trailer
				return z
			},
			want: concat(linesOf("crc.json.gz", 1, a), []rec{{"crc.json.gz", 4, "", "corrupt gzip stream: gzip: invalid checksum"}}),
		},
		{
			name: "gzip with a damaged header, by extension",
			file: "hdr.json.gz",
			data: func(t *testing.T) []byte { z := gz(t, a); z[0] = 'x'; return z },
			want: []rec{{"hdr.json.gz", 1, "", "corrupt gzip stream: gzip: invalid header"}},
		},
		{
			name: "bzip2",
			file: "a.json.bz2",
			data: func(t *testing.T) []byte { return bz2(t, a) },
			want: linesOf("a.json.bz2", 1, a),
		},
		{
			name: "bzip2 multi-stream",
			file: "multi.json.bz2",
			data: func(t *testing.T) []byte { return slices.Concat(bz2(t, a), bz2(t, b)) },
			want: linesOf("multi.json.bz2", 1, a+b),
		},
		{
			name: "zstd",
			file: "a.json.zst",
			data: func(t *testing.T) []byte { return slices.Concat(zst(t, a), zst(t, b)) },
			want: linesOf("a.json.zst", 1, a+b),
		},
		{
			name: "tar of per-minute files",
			file: "stream.tar",
			data: func(t *testing.T) []byte {
				return tarOf(t,
					member{"2018/10/10/20/", nil},
					member{"2018/10/10/20/19.json.bz2", bz2(t, a)},
					member{"2018/10/10/20/20.json.gz", gz(t, b)},
					member{"2018/10/10/20/._21.json.gz", []byte("resource fork")},
					member{"2018/10/10/20/21.json", []byte(c)},
				)
			},
			want: concat(
				linesOf("stream.tar!2018/10/10/20/19.json.bz2", 1, a),
				linesOf("stream.tar!2018/10/10/20/20.json.gz", 1, b),
				linesOf("stream.tar!2018/10/10/20/21.json", 1, c),
			),
		},
		{
			name: "tar.gz",
			file: "stream.tgz",
			data: func(t *testing.T) []byte {
				return gz(t, string(tarOf(t, member{"19.json.bz2", bz2(t, a)}, member{"20.json", []byte(b)})))
			},
			want: concat(linesOf("stream.tgz!19.json.bz2", 1, a), linesOf("stream.tgz!20.json", 1, b)),
		},
		{
			name: "truncated tar.gz",
			file: "cut.tar.gz",
			data: func(t *testing.T) []byte {
				// Two gzip members, the second cut after its header: the
				// tar stream ends where the second tar member's header
				// would start.
				tb := tarOf(t, member{"19.json", []byte(a)}, member{"20.json", []byte(b)})
				return slices.Concat(gz(t, string(tb[:1024])), gz(t, string(tb[1024:]))[:10])
			},
			// The first member is whole, and the archive itself carries the
			// fault.
			want: concat(linesOf("cut.tar.gz!19.json", 1, a), []rec{{"cut.tar.gz", 0, "", "truncated gzip stream: unexpected EOF"}}),
		},
		{
			name: "zip",
			file: "a.zip",
			data: func(t *testing.T) []byte {
				return zipOf(t,
					member{"dir/", nil},
					member{"19.json", []byte(a)},
					member{"20.json.gz", gz(t, b)},
					member{"__MACOSX/._20.json.gz", []byte("x")},
				)
			},
			want: concat(linesOf("a.zip!19.json", 1, a), linesOf("a.zip!20.json.gz", 1, b)),
		},
		{
			name: "zip with a checksum error",
			file: "crc.zip",
			data: func(t *testing.T) []byte {
				z := zipOf(t, member{"19.txt", []byte(a)}, member{"20.txt", []byte(b)})
				// The stored member's data follows its 30-byte local header
				// and name; change one byte of its first line.
				i := bytes.Index(z, []byte(`"tweet 1"`))
				z[i+7] = '9'
				return z
			},
			want: concat(
				linesOf("crc.zip!19.txt", 1, strings.Replace(a, "tweet 1", "tweet 9", 1)),
				[]rec{{"crc.zip!19.txt", 4, "", "corrupt zip stream: zip: checksum error"}},
				linesOf("crc.zip!20.txt", 1, b),
			),
		},
		{
			name: "zip member with an unknown method",
			file: "method.zip",
			data: func(t *testing.T) []byte {
				var buf bytes.Buffer
				w := zip.NewWriter(&buf)
				f, err := w.CreateRaw(&zip.FileHeader{Name: "19.json", Method: 99, CompressedSize64: 4, UncompressedSize64: 4})
				if err != nil {
					t.Fatal(err)
				}
				f.Write([]byte("abcd"))
				f, err = w.Create("20.json")
				if err != nil {
					t.Fatal(err)
				}
				f.Write([]byte(b))
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes()
			},
			want: concat(
				[]rec{{"method.zip!19.json", 1, "", "corrupt zip stream: zip: unsupported compression algorithm"}},
				linesOf("method.zip!20.json", 1, b),
			),
		},
		{
			name: "not a zip",
			file: "junk.zip",
			data: func(*testing.T) []byte { return []byte("PK\x03\x04 and then nothing") },
			want: []rec{{"junk.zip", 0, "", "corrupt zip stream: zip: not a valid zip file"}},
		},
		{
			name: "compression nested too deep",
			file: "deep.gz",
			data: func(t *testing.T) []byte {
				z := a
				for range maxDepth + 1 {
					z = string(gz(t, z))
				}
				return []byte(z)
			},
			want: []rec{{"deep.gz", 0, "", "archives or compression nested more than 8 deep"}},
		},
		{
			name: "nested tar, zip, gzip",
			file: "a.tar",
			data: func(t *testing.T) []byte {
				inner := zipOf(t, member{"c.json.gz", gz(t, a)}, member{"d.json", []byte(b)})
				return tarOf(t, member{"b.zip", inner}, member{"e.json.zst", zst(t, c)})
			},
			want: concat(linesOf("a.tar!b.zip!c.json.gz", 1, a), linesOf("a.tar!b.zip!d.json", 1, b), linesOf("a.tar!e.json.zst", 1, c)),
		},
		{
			name: "zip inside gzip",
			file: "a.zip.gz",
			data: func(t *testing.T) []byte { return gz(t, string(zipOf(t, member{"c.json", []byte(a)}))) },
			want: linesOf("a.zip.gz!c.json", 1, a),
		},
		{
			name: "JSON array document",
			file: "array.json",
			data: func(*testing.T) []byte { return []byte(array) },
			want: []rec{{"array.json", 1, array, ""}},
		},
		{
			name: "one-line arrays are JSON lines",
			file: "arrays.json",
			data: func(*testing.T) []byte { return []byte("[{\"id\":1}]\n[{\"id\":2}]\n") },
			want: []rec{{"arrays.json", 1, `[{"id":1}]`, ""}, {"arrays.json", 2, `[{"id":2}]`, ""}},
		},
		{
			name: "pretty-printed v1.1 search response",
			file: "search.json.gz",
			data: func(t *testing.T) []byte { return gz(t, string(search)) },
			want: []rec{{"search.json.gz", 1, string(search), ""}},
		},
		{
			name: "truncated document",
			file: "search.json.gz",
			data: func(t *testing.T) []byte { z := gz(t, string(search)); return z[:len(z)-9] },
			check: func(t *testing.T, got []rec, st Stats) {
				if len(got) != 1 || got[0].Line != 1 || !strings.HasPrefix(string(search), got[0].Data) ||
					len(got[0].Data) < len(search)/2 || got[0].Fault != "truncated gzip stream: unexpected EOF" {
					t.Errorf("records:\n%s\nwant one truncated record at line 1", join(got))
				}
			},
		},
		{
			name: "personal archive tweets.js",
			file: "data/tweets.js",
			data: func(*testing.T) []byte { return []byte("\xef\xbb\xbf" + tweetsJS) },
			want: []rec{{"data/tweets.js", 1, "\xef\xbb\xbf" + tweetsJS, ""}},
		},
		{
			name: "document too large",
			opts: Options{MaxDocumentBytes: 2000},
			file: "big.json",
			data: func(*testing.T) []byte { return []byte("[" + long + "]") },
			want: []rec{{"big.json", 1, ("[" + long)[:1024], "record exceeds 2000 bytes"}},
		},
		{
			name: "oversized lines",
			opts: Options{MaxRecordBytes: 2000},
			file: "long.json",
			data: func(*testing.T) []byte { return []byte(a + long + "\n" + b + long) },
			want: concat(
				linesOf("long.json", 1, a),
				[]rec{{"long.json", 4, long[:1024], "record exceeds 2000 bytes"}},
				linesOf("long.json", 5, b),
				[]rec{{"long.json", 7, long[:1024], "record exceeds 2000 bytes"}},
			),
		},
		{
			name: "oversized line spanning many reads",
			opts: Options{MaxRecordBytes: 300 << 10, BatchBytes: 8 << 10, BatchRecords: 3},
			file: "huge.json.gz",
			data: func(t *testing.T) []byte {
				return gz(t, a+strings.Repeat("y", 1<<20)+"\n"+strings.Repeat("z", 200<<10)+"\n"+b)
			},
			want: concat(
				linesOf("huge.json.gz", 1, a),
				[]rec{{"huge.json.gz", 4, strings.Repeat("y", 1024), "record exceeds 307200 bytes"}},
				[]rec{{"huge.json.gz", 5, strings.Repeat("z", 200<<10), ""}},
				linesOf("huge.json.gz", 6, b),
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			content := tt.data(t)
			path := writeFile(t, dir, tt.file, content)
			got, _, st, err := readAll(t, dir, path, tt.opts)
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if tt.check != nil {
				tt.check(t, got, st)
			} else if !slices.Equal(got, tt.want) {
				t.Errorf("records:\n%s\nwant:\n%s", join(got), join(tt.want))
			}
			if st.Records != int64(len(got)) {
				t.Errorf("Stats.Records = %d, want %d", st.Records, len(got))
			}
			if st.Bytes != int64(len(content)) && !strings.Contains(tt.file, "zip") {
				t.Errorf("Stats.Bytes = %d, want %d", st.Bytes, len(content))
			}
			var faults int64
			for _, r := range got {
				if r.Fault != "" {
					faults++
				}
			}
			if st.Faults != faults {
				t.Errorf("Stats.Faults = %d, want %d", st.Faults, faults)
			}
		})
	}
}

func join(rs []rec) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  " + r.String() + "\n")
	}
	return b.String()
}

// TestReadFileCorruptTarMember checks that a damaged member faults only
// itself: the members before and after it are read in full.
func TestReadFileCorruptTarMember(t *testing.T) {
	dir := t.TempDir()
	a, b, c := tweetLines(1, 3), randomTweets(200, 1000, 1), tweetLines(6, 4)
	bad := bz2Level(t, string(b), 1)
	bad[len(bad)*2/3] ^= 0x55
	path := writeFile(t, dir, "bad.tar", tarOf(t,
		member{"19.json.gz", gz(t, a)},
		member{"20.json.bz2", bad},
		member{"21.json.gz", gz(t, c)},
	))
	got, _, _, err := readAll(t, dir, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mid []rec
	for _, r := range got {
		if r.Source == "bad.tar!20.json.bz2" {
			mid = append(mid, r)
		}
	}
	want := concat(linesOf("bad.tar!19.json.gz", 1, a), mid, linesOf("bad.tar!21.json.gz", 1, c))
	if !slices.Equal(got, want) {
		t.Fatalf("records:\n%s\nwant:\n%s", join(got), join(want))
	}
	checkTruncated(t, mid, string(b), "corrupt bzip2 stream: bzip2: corrupted input")
}

// TestReadFileTruncated cuts compressed streams in the middle and checks
// that every complete line before the cut is a record and that the stream
// ends with one faulted record holding the partial last line.
func TestReadFileTruncated(t *testing.T) {
	text := string(randomTweets(400, 3000, 2))
	tests := []struct {
		name, file string
		data       []byte
		fault      string
	}{
		{"gzip", "t.json.gz", gz(t, text), "truncated gzip stream: unexpected EOF"},
		{"bzip2", "t.json.bz2", bz2Level(t, text, 1), "truncated bzip2 stream: unexpected EOF"},
		{"zstd", "t.json.zst", zst(t, text), "truncated zstd stream: unexpected EOF"},
		{"tar", "t.tar", tarOf(t, member{"m.json", []byte(text)}), "truncated tar stream: unexpected EOF"},
		{"gzip in tar", "t.tar", tarOf(t, member{"m.json.gz", gz(t, text)}), "truncated tar stream: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, tt.file, tt.data[:len(tt.data)*2/3])
			got, _, st, err := readAll(t, dir, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Faults != 1 {
				t.Errorf("Faults = %d, want 1", st.Faults)
			}
			checkTruncated(t, got, text, tt.fault)
		})
	}
}

// checkTruncated checks that recs are the first lines of text, the last one
// cut short (possibly empty) and faulted with a fault starting with fault.
func checkTruncated(t *testing.T, recs []rec, text, fault string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	if len(recs) < 2 {
		t.Fatalf("got %d records, want complete lines and a fault", len(recs))
	}
	last := recs[len(recs)-1]
	for i, r := range recs[:len(recs)-1] {
		if r.Line != int64(i+1) || r.Data != lines[i] || r.Fault != "" {
			t.Fatalf("record %d = %v, want line %d intact", i, r, i+1)
		}
	}
	n := len(recs)
	if last.Line != int64(n) || !strings.HasPrefix(lines[n-1], last.Data) || !strings.HasPrefix(last.Fault, fault) {
		t.Fatalf("last record = %v, want line %d: a prefix of %.40q with fault %q", last, n, lines[n-1], fault)
	}
}

func TestReadFileBatches(t *testing.T) {
	dir := t.TempDir()
	text := tweetLines(1, 10)
	path := writeFile(t, dir, "a.json", []byte(text))
	got, batches, _, err := readAll(t, dir, path, Options{BatchRecords: 3})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, b := range batches {
		sizes = append(sizes, len(b))
	}
	if !slices.Equal(sizes, []int{3, 3, 3, 1}) {
		t.Errorf("batch sizes = %v, want [3 3 3 1]", sizes)
	}
	if want := linesOf("a.json", 1, text); !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant:\n%s", join(got), join(want))
	}

	// Byte-bounded batches: each closes once it holds 100 bytes.
	_, batches, _, err = readAll(t, dir, path, Options{BatchBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range batches[:len(batches)-1] {
		n := 0
		for _, r := range b {
			n += len(r.Data)
		}
		if n < 100 || n-len(b[len(b)-1].Data) >= 100 {
			t.Errorf("batch %d holds %d bytes in %d records, want the first record past 100 bytes to close it", i, n, len(b))
		}
	}
}

// TestReadFileReuseSafe keeps every batch and checks that appending to a
// record's Data does not overwrite the next record.
func TestReadFileReuseSafe(t *testing.T) {
	dir := t.TempDir()
	text := tweetLines(1, 50)
	path := writeFile(t, dir, "a.json.gz", gz(t, text))
	var all []schemas.Record
	_, err := ReadFile(context.Background(), path, Options{BatchRecords: 7}, func(b []schemas.Record) error {
		for i := range b {
			_ = append(b[i].Data, "XXXX"...)
		}
		all = append(all, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if string(all[i].Data) != l {
			t.Fatalf("record %d = %q, want %q", i, all[i].Data, l)
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.json", []byte(tweetLines(1, 10)))

	t.Run("missing file", func(t *testing.T) {
		_, err := ReadFile(context.Background(), filepath.Join(dir, "missing.json"), Options{}, func([]schemas.Record) error { return nil })
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.json") {
			t.Errorf("err = %v, want a not-exist error naming the file", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		_, err := ReadFile(context.Background(), dir, Options{}, func([]schemas.Record) error { return nil })
		if err == nil {
			t.Error("err = nil, want an error for a directory")
		}
	})
	t.Run("callback error", func(t *testing.T) {
		boom := errors.New("boom")
		calls := 0
		_, err := ReadFile(context.Background(), path, Options{BatchRecords: 2}, func([]schemas.Record) error { calls++; return boom })
		if err != boom || calls != 1 {
			t.Errorf("err = %v after %d calls, want boom after 1", err, calls)
		}
	})
	t.Run("cancelled between batches", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		_, err := ReadFile(ctx, path, Options{BatchRecords: 2}, func([]schemas.Record) error { calls++; cancel(); return nil })
		if !errors.Is(err, context.Canceled) || calls != 1 {
			t.Errorf("err = %v after %d calls, want context.Canceled after 1", err, calls)
		}
	})
}

func TestMayBeDocument(t *testing.T) {
	tests := []struct {
		head string
		want bool
	}{
		{`{"a":1}` + "\n" + `{"a":2}` + "\n", false},
		{"  [\n{}]", true},
		{"{\n  \"statuses\": [\n", true},
		{"{\n  \"data\": 1\n}", true},
		{"{\"broken\n{\"a\":1}\n", false},
		{"{\"broken\n{\"a\":", false},
		{"{\"a\":\n{\"b\":", true}, // could be a document: read on to tell
		{"{\"a\":1}", false},
		{"", false},
		{"[1]\n[2]\n", false},
		{"[{\"a\":1},\n{\"a\":2}]", true},
		{"[{\"a\":1},{\"a\":", true}, // an array longer than the peek
		{"{\"a\":1,\"b\":", false},   // a long first line: JSON lines
		{"\n\n", false},
		{"\x00\n{\"a\":1}\n", false},
		{"garbage\nmore garbage\n", false},
	}
	for _, tt := range tests {
		if got := mayBeDocument([]byte(tt.head)); got != tt.want {
			t.Errorf("mayBeDocument(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

func TestJSONShape(t *testing.T) {
	tests := []struct {
		data string
		want shape
	}{
		{`{"a":1}`, shapeValue},
		{"\xef\xbb\xbf [1,\n2]\n", shapeValue},
		{`{"a":1} {`, shapeOther},
		{`{"a":`, shapePrefix},
		{`{"ab`, shapePrefix},
		{`[1,2`, shapePrefix},
		{"\x00", shapeOther},
		{`{"a" 1}`, shapeOther},
		{"", shapeOther},
	}
	for _, tt := range tests {
		if got := jsonShape([]byte(tt.data)); got != tt.want {
			t.Errorf("jsonShape(%q) = %v, want %v", tt.data, got, tt.want)
		}
	}
}
