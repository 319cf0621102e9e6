package tweetgen

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// recount reads a generated data set back the way a reader would, with
// encoding/json and the standard decompressors, and counts what it finds.
// It shares nothing with the generator's model but the term matcher
// (hasTerm, tested on its own), so comparing the two checks that the files
// say what the oracle claims.
type recount struct {
	t       *testing.T
	read    int64
	skipped int64
	dead    []string // origins
	copies  map[string]int
	stored  map[string][]byte
	freq    map[string]int64
	points  map[string][2]float64
	terms   map[string]int64
}

func newRecount(t *testing.T) *recount {
	return &recount{t: t, copies: map[string]int{}, stored: map[string][]byte{}, freq: map[string]int64{},
		points: map[string][2]float64{}, terms: map[string]int64{}}
}

// dir reads every file of dir.
func (c *recount) dir(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			c.t.Fatal(err)
		}
		c.file(e.Name(), data)
	}
}

// file reads one file named name.
func (c *recount) file(name string, data []byte) {
	switch {
	case strings.HasSuffix(name, ".tar"):
		tr := tar.NewReader(bytes.NewReader(data))
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				c.t.Fatalf("%s: %v", name, err)
			}
			if h.Typeflag == tar.TypeDir {
				continue
			}
			m, err := io.ReadAll(tr)
			if err != nil {
				c.t.Fatal(err)
			}
			c.stream(name+"!"+h.Name, m)
		}
	case strings.HasSuffix(name, ".zip"):
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			c.t.Fatal(err)
		}
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				c.t.Fatal(err)
			}
			m, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				c.t.Fatal(err)
			}
			c.stream(name+"!"+f.Name, m)
		}
	case name == "tweets.js":
		i := bytes.IndexByte(data, '[')
		if !bytes.HasPrefix(data, []byte("window.YTD.tweets.part0 = ")) || i < 0 {
			c.t.Fatalf("%s: not a tweets.js", name)
		}
		var elems []map[string]json.RawMessage
		c.unmarshal(data[i:], &elems)
		for _, e := range elems {
			c.item(name, 1, e["tweet"])
		}
	case strings.HasPrefix(name, "v1-search"):
		var resp struct{ Statuses []json.RawMessage }
		c.unmarshal(data, &resp)
		for _, s := range resp.Statuses {
			c.item(name, 1, s)
		}
	case name == "v1-array.json":
		var elems []json.RawMessage
		c.unmarshal(data, &elems)
		for _, e := range elems {
			c.item(name, 1, e)
		}
	default:
		c.stream(name, data)
	}
}

func (c *recount) unmarshal(data []byte, v any) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		c.t.Fatalf("document: %v", err)
	}
}

// decompress returns the bytes of a stream named name, and the error that
// ended it early, if any.
func (c *recount) decompress(name string, data []byte) ([]byte, error) {
	var r io.Reader
	var err error
	switch {
	case strings.HasSuffix(name, ".gz"):
		r, err = gzip.NewReader(bytes.NewReader(data))
	case strings.HasSuffix(name, ".bz2"):
		r = bzip2.NewReader(bytes.NewReader(data))
	case strings.HasSuffix(name, ".zst"):
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(data))
		if err == nil {
			defer d.Close()
			r = d
		}
	default:
		return data, nil
	}
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	return io.ReadAll(r)
}

// stream reads a JSON-lines stream: one item per line (and per element of
// a v2 page), a final line without a newline included; a stream cut short
// ends with one dead item.
func (c *recount) stream(origin string, data []byte) {
	plain, streamErr := c.decompress(origin, data)
	segs := bytes.Split(plain, []byte("\n"))
	last := segs[len(segs)-1]
	segs = segs[:len(segs)-1]
	for i, line := range segs {
		c.line(origin, i+1, bytes.TrimSuffix(line, []byte("\r")))
	}
	n := len(segs)
	switch {
	case streamErr != nil:
		if !errors.Is(streamErr, io.ErrUnexpectedEOF) {
			c.t.Errorf("%s: %v", origin, streamErr)
		}
		c.read++
		c.dead = append(c.dead, fmt.Sprintf("%s:%d", origin, n+1))
	case len(last) > 0:
		c.line(origin, n+1, last)
	}
}

// line reads one line.
func (c *recount) line(origin string, n int, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		c.read++
		c.skipped++
		return
	}
	if !utf8.Valid(line) || !json.Valid(line) {
		c.read++
		c.dead = append(c.dead, fmt.Sprintf("%s:%d", origin, n))
		return
	}
	var page struct {
		Data     []json.RawMessage
		Includes *includesJSON
	}
	if bytes.HasPrefix(line, []byte(`{"data":[`)) {
		c.unmarshal(line, &page)
		for _, d := range page.Data {
			c.v2(origin, n, d, page.Includes)
		}
		return
	}
	c.item(origin, n, line)
}

// includesJSON is a v2 page's includes.
type includesJSON struct {
	Users  []map[string]any
	Places []map[string]any
	Tweets []map[string]any
}

func (inc *includesJSON) find(list []map[string]any, id any) map[string]any {
	for _, m := range list {
		if m["id"] == id {
			return m
		}
	}
	return nil
}

// item reads a v1.1 tweet, a control message or a flattened v2 tweet.
func (c *recount) item(origin string, n int, raw []byte) {
	var m map[string]any
	c.unmarshal(raw, &m)
	for _, k := range controlNames {
		if _, ok := m[k]; ok {
			c.read++
			c.skipped++
			return
		}
	}
	if _, ok := m["edit_history_tweet_ids"]; ok {
		c.v2(origin, n, raw, nil)
		return
	}
	c.read++
	dead := func() { c.dead = append(c.dead, fmt.Sprintf("%s:%d", origin, n)) }
	id, ok := m["id_str"].(string)
	if !ok {
		dead()
		return
	}
	created, err := time.Parse(time.RubyDate, str(m["created_at"]))
	if err != nil {
		dead()
		return
	}
	lat, lon, hasPoint, valid := v1PointOf(m)
	if !valid {
		dead()
		return
	}
	text := v1FullTextOf(m)
	if rs, ok := m["retweeted_status"].(map[string]any); ok {
		text = "RT @" + str(get(rs, "user", "screen_name")) + ": " + v1FullTextOf(rs)
	}
	var name, screen string
	if u, ok := m["user"].(map[string]any); ok {
		name, screen = str(u["name"]), str(u["screen_name"])
	}
	c.tweet(id, raw, created, str(m["lang"]), text, name, screen, lat, lon, hasPoint)
}

// v2 reads a v2 tweet, of a page (inc set) or flattened.
func (c *recount) v2(origin string, n int, raw []byte, inc *includesJSON) {
	c.read++
	var m map[string]any
	c.unmarshal(raw, &m)
	id := str(m["id"])
	created, err := time.Parse(time.RFC3339, str(m["created_at"]))
	if id == "" || err != nil {
		c.dead = append(c.dead, fmt.Sprintf("%s:%d", origin, n))
		return
	}
	author, _ := m["author"].(map[string]any)
	if inc != nil {
		author = inc.find(inc.Users, m["author_id"])
	}
	text := str(m["text"])
	refs, _ := m["referenced_tweets"].([]any)
	for _, r := range refs {
		ref := r.(map[string]any)
		if ref["type"] != "retweeted" {
			continue
		}
		orig, by := ref, get(ref, "author", "username")
		if inc != nil {
			orig = inc.find(inc.Tweets, ref["id"])
			by = inc.find(inc.Users, orig["author_id"])["username"]
		}
		text = "RT @" + str(by) + ": " + str(orig["text"])
	}
	var lat, lon float64
	var hasPoint bool
	if g, ok := m["geo"].(map[string]any); ok {
		if p, ok := get(g, "coordinates", "coordinates").([]any); ok {
			lon, lat, hasPoint = num(p[0]), num(p[1]), true
		} else {
			place := g
			if inc != nil {
				place = inc.find(inc.Places, g["place_id"])
			}
			bb := get(place, "geo", "bbox").([]any)
			lat, lon, hasPoint = (num(bb[1])+num(bb[3]))/2, (num(bb[0])+num(bb[2]))/2, true
		}
	}
	if inc != nil {
		raw = nil // the reader builds the stored document
	}
	c.tweet(id, raw, created, str(m["lang"]), text, str(author["name"]), str(author["username"]), lat, lon, hasPoint)
}

// tweet counts a tweet item.
func (c *recount) tweet(id string, raw []byte, created time.Time, lang, text, name, screen string, lat, lon float64, hasPoint bool) {
	c.copies[id]++
	if c.copies[id] > 1 {
		if raw == nil || !bytes.Equal(c.stored[id], raw) {
			c.t.Errorf("tweet %s repeated with other bytes", id)
		}
		return
	}
	c.stored[id] = raw
	c.freq[created.UTC().Format("200601021504")+"/"+lang]++
	if hasPoint {
		c.points[id] = [2]float64{lat, lon}
	}
	low := strings.ToLower(stripLinks(text))
	for _, p := range probes {
		has := false
		if p.field == "text" {
			has = hasTerm(low, p.term)
		} else {
			has = hasTerm(strings.ToLower(name), p.term) || strings.ToLower(screen) == p.term
		}
		if has {
			c.terms[p.field+"/"+p.term]++
		}
	}
}

// compare reports every difference between the recount and e.
func (c *recount) compare(e *Expected) {
	t := c.t
	t.Helper()
	var tweets, dups int64
	for _, n := range c.copies {
		tweets++
		dups += int64(n - 1)
	}
	got := [5]int64{c.read, tweets, dups, c.skipped, int64(len(c.dead))}
	want := [5]int64{e.Read, e.Tweets, e.Duplicates, e.Skipped, e.DeadLettered}
	if got != want {
		t.Errorf("recount read/tweets/duplicates/skipped/dead = %v, oracle %v", got, want)
	}
	if !mapsEqual(c.freq, e.Frequency) {
		t.Errorf("frequency differs: recount %d keys, oracle %d", len(c.freq), len(e.Frequency))
	}
	if !mapsEqual(c.points, e.Points) {
		t.Errorf("points differ: recount %d, oracle %d", len(c.points), len(e.Points))
	}
	for k, v := range e.Terms {
		if c.terms[k] != v {
			t.Errorf("term %s: recount %d, oracle %d", k, c.terms[k], v)
		}
	}
	var origins []string
	for _, d := range e.DeadLetters {
		origins = append(origins, d.Origin)
	}
	slices.Sort(origins)
	slices.Sort(c.dead)
	if len(e.DeadLetters) > 0 && !slices.Equal(origins, c.dead) {
		t.Errorf("dead letters: recount %v, oracle %v", c.dead, origins)
	}
}

func mapsEqual[V comparable](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// v1PointOf returns a v1.1 tweet's point and whether its coordinates are
// possible.
func v1PointOf(m map[string]any) (lat, lon float64, ok, valid bool) {
	if p, isArr := get(m, "coordinates", "coordinates").([]any); isArr {
		lon, lat = num(p[0]), num(p[1])
		return lat, lon, true, lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
	}
	if p, isArr := get(m, "geo", "coordinates").([]any); isArr {
		lat, lon = num(p[0]), num(p[1])
		return lat, lon, true, lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
	}
	if ring, isArr := get(m, "place", "bounding_box", "coordinates").([]any); isArr {
		minLat, maxLat, minLon, maxLon := 90.0, -90.0, 180.0, -180.0
		for _, c := range ring[0].([]any) {
			p := c.([]any)
			x, y := num(p[0]), num(p[1])
			minLon, maxLon, minLat, maxLat = min(minLon, x), max(maxLon, x), min(minLat, y), max(maxLat, y)
		}
		return (minLat + maxLat) / 2, (minLon + maxLon) / 2, true, true
	}
	return 0, 0, false, true
}

// v1FullTextOf returns extended_tweet.full_text, full_text or text.
func v1FullTextOf(m map[string]any) string {
	if s, ok := get(m, "extended_tweet", "full_text").(string); ok {
		return s
	}
	if s, ok := m["full_text"].(string); ok {
		return s
	}
	return str(m["text"])
}

// get walks nested objects.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

func num(v any) float64 {
	f, err := strconv.ParseFloat(string(v.(json.Number)), 64)
	if err != nil {
		panic(err)
	}
	return f
}
