package tweetgen

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
)

const testSeed = 20261122

// readDir returns the files of dir by name.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSampleDeterministic generates the sample twice
// and compares every byte, the oracle included; another seed must differ.
func TestSampleDeterministic(t *testing.T) {
	gen := func(seed uint64) map[string][]byte {
		dir := t.TempDir()
		if _, _, err := WriteSample(context.Background(), SampleConfig{Seed: seed, Out: filepath.Join(dir, "sample")}); err != nil {
			t.Fatal(err)
		}
		return readDir(t, dir)
	}
	a, b := gen(20261122), gen(20261122)
	if len(a) != 13 {
		t.Fatalf("%d files written, want 12 inputs and the oracle", len(a))
	}
	if _, ok := a[filepath.Join("expected", "sample.json")]; !ok {
		t.Fatalf("no expected/sample.json beside the sample: %v", keys(a))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	c := gen(1)
	same := 0
	for name, data := range a {
		if bytes.Equal(data, c[name]) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d files identical under another seed", same)
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestSampleReconciles checks the oracle's arithmetic, then reads the
// written files back independently and compares every count.
func TestSampleReconciles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sample")
	if _, _, err := WriteSample(context.Background(), SampleConfig{Seed: testSeed, Out: out}); err != nil {
		t.Fatal(err)
	}
	var e Expected
	data, err := os.ReadFile(filepath.Join(dir, "expected", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	if err := e.check(); err != nil {
		t.Fatal(err)
	}
	if e.Read != e.Tweets+e.Duplicates+e.Skipped+e.DeadLettered || e.Indexed != e.Tweets {
		t.Fatalf("counts do not reconcile: %+v", e)
	}
	// The sample must cover what the brief lists.
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"about 2,000 items", e.Read > 1500 && e.Read < 2500},
		{"duplicates", e.Duplicates >= 4},
		{"control messages", e.Skipped >= 7},
		{"every dead-letter cause", len(e.DeadLetters) >= 7},
		{"geotagged tweets", e.Rows["geo"] > 50},
		{"minutes with several languages", severalLangMinutes(e.Frequency) > 30},
		{"the seed's user", e.Terms["user/u1scr"] >= 1 && e.Terms["user/user1"] >= 1},
		{"extended text probe", e.Terms["text/"+probeExtended] > 0},
		{"v2 retweet probe", e.Terms["text/"+probeV2RT] > 0},
		{"ja, ar, es", e.Terms["text/東京"] > 0 && e.Terms["text/مرحبا"] > 0 && e.Terms["text/canción"] > 0},
	} {
		if !c.ok {
			t.Errorf("sample lacks %s", c.what)
		}
	}
	causes := map[string]bool{}
	for _, d := range e.DeadLetters {
		causes[d.Cause] = true
	}
	for _, c := range []string{causeBrokenJSON, causeNotJSON, causeUTF8, causeCreatedAt, causeIDStr, causeLatitude, causeTruncated} {
		if !causes[c] {
			t.Errorf("no dead letter for %q", c)
		}
	}
	var size int64
	for _, f := range readDir(t, out) {
		size += int64(len(f))
	}
	if size > 1_100_000 {
		t.Errorf("sample is %d bytes, over ~1 MB", size)
	}

	rc := newRecount(t)
	rc.dir(out)
	rc.compare(&e)
}

func severalLangMinutes(freq map[string]int64) int {
	langs := map[string]int{}
	for k := range freq {
		langs[k[:12]]++
	}
	n := 0
	for _, c := range langs {
		if c >= 3 {
			n++
		}
	}
	return n
}

// TestSampleContent checks what the oracle cannot see: the seed tweet is
// there verbatim, probe words that must never count are really in the
// files, hidden probes are hidden, ids are float-mangled.
func TestSampleContent(t *testing.T) {
	set := buildSample(testSeed)
	var all bytes.Buffer
	for _, s := range set.streams {
		all.Write(s.buf)
	}
	for _, f := range set.files {
		if !strings.Contains(f.name, ".") || strings.HasSuffix(f.name, ".json") || strings.HasSuffix(f.name, ".js") || strings.HasSuffix(f.name, ".jsonl") {
			all.Write(f.data)
		}
	}
	text := all.String()
	if !strings.Contains(text, `"text":"A tweet about #ApacheAccumulo and #ApacheFlink and"`) {
		t.Error("seed tweet text missing")
	}
	if !strings.Contains(text, `"name":"user1","screen_name":"u1scr"`) {
		t.Error("seed user missing")
	}
	for _, w := range []string{probeDesc, probeDead, probeQuote, probeExtended, probeV2RT} {
		if !strings.Contains(strings.ToLower(text), w) {
			t.Errorf("probe %q never written: its expected count proves nothing", w)
		}
	}
	// Every way of locating a tweet is there.
	for _, loc := range []string{
		`"coordinates":{"type":"Point","coordinates":[`,        // v1.1 GeoJSON [lon, lat]
		`]},"coordinates":null,"place":null`,                   // v1.1 deprecated geo only
		`"geo":null,"coordinates":null,"place":{"id":`,         // v1.1 place only
		`"geo":{"coordinates":{"type":"Point","coordinates":[`, // v2 point
		`"geo":{"place_id":`,                                   // v2 place only
	} {
		if !strings.Contains(text, loc) {
			t.Errorf("no tweet located by %s", loc)
		}
	}
	// A hidden probe never shows in a top-level v1.1 "text" or a v2
	// retweet's own text: only a reader of the full text finds it.
	visible := regexp.MustCompile(`"text":"((?:[^"\\]|\\.)*)"`)
	for _, m := range visible.FindAllStringSubmatch(text, -1) {
		low := strings.ToLower(m[1])
		if strings.HasPrefix(low, "rt @") || strings.Contains(low, "\\u2026 https") || strings.Contains(low, "… https") {
			if strings.Contains(low, probeExtended) || strings.Contains(low, probeV2RT) {
				t.Errorf("probe visible in truncated text %q", m[1])
			}
		}
	}
	// ids: id_str is exact and consistent with created_at; "id" is the
	// float-mangled number; at least one pair of tweets shares an "id".
	idRE := regexp.MustCompile(`\{"created_at":"([^"]+)","id":(\d+),"id_str":"(\d+)"`)
	byMangled := map[string]map[string]bool{}
	n := 0
	for _, m := range idRE.FindAllStringSubmatch(text, -1) {
		n++
		if m[2] == m[3] {
			t.Errorf("id %s not mangled", m[3])
		}
		id, _ := strconv.ParseUint(m[3], 10, 64)
		created, err := time.Parse(time.RubyDate, m[1])
		if err != nil {
			t.Fatal(err)
		}
		if sec := (int64(id>>22) + twitterEpoch) / 1000; sec != created.Unix() {
			t.Errorf("id %d is from second %d, created_at %s", id, sec, m[1])
		}
		if byMangled[m[2]] == nil {
			byMangled[m[2]] = map[string]bool{}
		}
		byMangled[m[2]][m[3]] = true
	}
	if n < 1000 {
		t.Fatalf("only %d v1.1 ids found", n)
	}
	collisions := 0
	for _, ids := range byMangled {
		if len(ids) > 1 {
			collisions++
		}
	}
	if collisions == 0 {
		t.Error("no two tweets share a float-mangled id")
	}
}

// TestTruncatedGzip decodes the truncated file with two gzip decoders:
// both must yield every complete line and the partial one, then fail
// with an unexpected EOF, so that the oracle's count holds for either.
func TestTruncatedGzip(t *testing.T) {
	set := buildSample(testSeed)
	const name = "v1-stream-13e-truncated.json.gz"
	var data []byte
	for _, f := range set.files {
		if f.name == name {
			data = f.data
		}
	}
	want := set.streams[name].buf
	if bytes.HasSuffix(want, []byte("\n")) {
		t.Fatal("the stream should end in a partial line")
	}
	decoders := map[string]func(io.Reader) (io.Reader, error){
		"compress/gzip":           func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) },
		"klauspost/compress/gzip": func(r io.Reader) (io.Reader, error) { return kgzip.NewReader(r) },
	}
	for dname, open := range decoders {
		t.Run(dname, func(t *testing.T) {
			r, err := open(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("error %v, want unexpected EOF", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("decoded %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// TestBench writes a small bench set twice (plain, then gzip), checks the
// shares the brief asks for, and reads it back against the oracle.
func TestBench(t *testing.T) {
	const n = 4000
	dir1, dir2, dirGz := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{dir1, dir2} {
		if _, _, err := WriteBench(context.Background(), BenchConfig{N: n, Seed: 7, Out: d, Files: 3}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := WriteBench(context.Background(), BenchConfig{N: n, Seed: 7, Out: dirGz, Files: 3, Gzip: true}); err != nil {
		t.Fatal(err)
	}
	a, b := readDir(t, dir1), readDir(t, dir2)
	if len(a) != 4 {
		t.Fatalf("files: %v", keys(a))
	}
	for name, data := range a {
		if name != "EXPECTED.json" && !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between runs", name)
		}
	}
	gz := readDir(t, dirGz)
	for i := 0; i < 3; i++ {
		zr, err := stdgzip.NewReader(bytes.NewReader(gz[benchFileName(i, true)]))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(plain, a[benchFileName(i, false)]) {
			t.Errorf("gzip file %d does not hold the plain file (%v)", i, err)
		}
	}

	var e Expected
	if err := json.Unmarshal(a["EXPECTED.json"], &e); err != nil {
		t.Fatal(err)
	}
	if err := e.check(); err != nil {
		t.Fatal(err)
	}
	var lines, bytesTotal, retweets, points, crossFile int
	seenIn := map[string]int{}
	for i := 0; i < 3; i++ {
		sc := bufio.NewScanner(bytes.NewReader(a[benchFileName(i, false)]))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			lines++
			bytesTotal += len(line) + 1
			if bytes.Contains(line, []byte(`"retweeted_status":{`)) {
				retweets++
			}
			if bytes.Contains(line, []byte(`"coordinates":{"type":"Point"`)) {
				points++
			}
			id := string(line[bytes.Index(line, []byte(`"id_str":"`))+10:][:19])
			if f, ok := seenIn[id]; ok && f != i {
				crossFile++
			}
			seenIn[id] = i
		}
	}
	share := func(k int) float64 { return float64(k) / float64(lines) }
	for _, c := range []struct {
		what     string
		got      float64
		min, max float64
	}{
		{"items", float64(lines), n, n},
		{"mean bytes per tweet", float64(bytesTotal) / float64(lines), 2000, 4000},
		{"duplicate share", float64(e.Duplicates) / float64(e.Read), 0.005, 0.015},
		{"retweet share", share(retweets), 0.27, 0.33},
		{"point-tagged share", share(points), 0.012, 0.03},
		{"cross-file duplicates", float64(crossFile), 1, n},
	} {
		if c.got < c.min || c.got > c.max {
			t.Errorf("%s = %.3f, want in [%v, %v]", c.what, c.got, c.min, c.max)
		}
	}
	rc := newRecount(t)
	for i := 0; i < 3; i++ {
		rc.file(benchFileName(i, false), a[benchFileName(i, false)])
	}
	rc.compare(&e)
}

// TestAppendString checks the JSON string writer against encoding/json.
func TestAppendString(t *testing.T) {
	for _, tc := range []struct {
		in    string
		ascii bool
		want  string
	}{
		{"plain", false, `"plain"`},
		{"a/b", false, `"a/b"`},
		{"a/b", true, `"a\/b"`},
		{`q"b\`, false, `"q\"b\\"`},
		{"l1\nl2\t\r\x01", false, `"l1\nl2\t\r\u0001"`},
		{"東京", false, `"東京"`},
		{"東京", true, `"\u6771\u4eac"`},
		{"😂!", true, `"\ud83d\ude02!"`},
		{"canción", true, `"canci\u00f3n"`},
	} {
		got := string(appendString(nil, tc.in, tc.ascii))
		if got != tc.want {
			t.Errorf("appendString(%q, %v) = %s, want %s", tc.in, tc.ascii, got, tc.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != tc.in {
			t.Errorf("%s decodes to %q (%v)", got, back, err)
		}
	}
}

// TestHasTerm checks the oracle's term matcher.
func TestHasTerm(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       bool
	}{
		{"a tweet about #apacheflink and", "#apacheflink", true},
		{"a tweet about #apacheflink and", "apacheflink", true},
		{"a tweet about apacheflink", "#apacheflink", false},
		{"x#apacheflink", "#apacheflink", false},
		{"sand and band", "and", true},
		{"sand band", "and", false},
		{"can't", "can", true},
		{"rt @u1scr: hi", "rt", true},
		{"rt @u1scr: hi", "u1scr", true},
		{"art", "rt", false},
		{"今日は東京タワー", "東京", true},
		{"東 京", "東京", false},
		{"la canción!", "canción", true},
		{"cancións", "canción", false},
		{"مرحبا اليوم", "مرحبا", true},
		{"serendipity_x", "serendipity", false},
	} {
		if got := hasTerm(tc.text, tc.term); got != tc.want {
			t.Errorf("hasTerm(%q, %q) = %v, want %v", tc.text, tc.term, got, tc.want)
		}
	}
	if got := stripLinks("see https://t.co/and1 and www.x.org/and"); hasTerm(got, "and1") || !hasTerm(got, "and") {
		t.Errorf("stripLinks left %q", got)
	}
}

// TestWriteSampleRefusesStrangers checks that the sample is never written
// over a directory holding other files, which a glob would read too.
func TestWriteSampleRefusesStrangers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := WriteSample(context.Background(), SampleConfig{Seed: testSeed, Out: dir, Expected: filepath.Join(t.TempDir(), "e.json")})
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("err = %v, want a refusal naming notes.txt", err)
	}
}

// BenchmarkBenchTweets measures generation of bench tweets (bytes/s is the
// generator's MB/s, before any disk write).
func BenchmarkBenchTweets(b *testing.B) {
	g := newBenchGen(7, 1_000_000)
	var buf []byte
	var total int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = appendV1Tweet(buf[:0], g.tweet(i), styleStream)
		total += int64(len(buf)) + 1
	}
	b.SetBytes(total / int64(b.N))
}

// Example shows the float mangling that makes a v1.1 "id" unusable: the
// nearest float64 of the id, printed in its shortest form.
func Example() {
	id := snowflake(time.Date(2026, 11, 1, 12, 5, 9, 0, time.UTC).UnixMilli(), 3, 5, 1)
	fmt.Println(id)
	fmt.Println(string(appendMangledID(nil, id)))
	fmt.Println(hasTerm("a tweet about #apacheaccumulo and #apacheflink and", "apacheflink"))
	// Output:
	// 2116864114554195969
	// 2116864114554196000
	// true
}
