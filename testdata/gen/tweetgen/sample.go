package tweetgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// The committed sample: a few hours of 2026-11-01 UTC in every input format
// the project reads, with every kind of damage it must survive. The layout
// of each file is documented in testdata/README.md.

// outFile is a file of a generated data set.
type outFile struct {
	name string
	data []byte
}

// sampleSet is a generated sample, in memory.
type sampleSet struct {
	files []outFile
	exp   *Expected
	// streams holds, for every JSON-lines stream (a file, or an archive
	// member, by its origin name), its decompressed bytes and the kind of
	// each line: 't' tweet, 'c' control or keep-alive, 'd' dead letter.
	streams map[string]*lines
	// docs holds, for every whole-document file, the number of items.
	docs map[string]int
}

// sampleDay is the day the sample covers.
var sampleDay = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func at(h, m, s int) time.Time {
	return sampleDay.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
}

// Styles of the sample's v1.1 tweets.
var (
	// styleStream is the streaming API as stream-grab archives hold it.
	styleStream = v1Style{ascii: true, fullUser: true, stream: true}
	// styleStreamLite is the same with a compact user, for uncompressed
	// files (the sample stays under 1 MB).
	styleStreamLite = v1Style{ascii: true, stream: true}
	// styleREST is a REST API export: UTF-8, compact user.
	styleREST = v1Style{}
	// styleSearch is a search response in tweet_mode=extended.
	styleSearch = v1Style{search: true}
)

// sampleMix is the kinds of the sample's v1.1 stream tweets.
var sampleMix = mix{langs: sampleLangs, retweet: 250, extended: 110, reply: 80, quote: 40, geoPoint: 60, geoOnlyGeo: 25, geoPlace: 45}

// sampleMixV2 is the kinds of the sample's v2 tweets.
var sampleMixV2 = mix{langs: sampleLangs, retweet: 300, extended: 80, reply: 100, geoPoint: 50, geoPlace: 60, v2: true}

// sampleGen builds the sample.
type sampleGen struct {
	seed     uint64
	r        *rand.Rand
	b        builder
	y        *tally
	seen     map[uint64][]byte
	pools    map[string][]*user
	everyone []*user
	seedUser *user
	files    []FileCount
	fc       *FileCount
	set      *sampleSet
	// kept are tweet lines written earlier that later files repeat
	// byte for byte.
	kept []item
}

// item is one line of a JSON-lines stream being planned.
type item struct {
	ms    int64
	kind  byte // 't', 'c' or 'd'
	t     *tweet
	raw   []byte
	cause string
}

// lines is a JSON-lines stream being written: a file or an archive member.
type lines struct {
	g      *sampleGen
	origin string
	eol    string
	buf    []byte
	kinds  []byte
}

func (s *lines) add(raw []byte, kind byte, eol bool) {
	s.buf = append(s.buf, raw...)
	if eol {
		s.buf = append(s.buf, s.eol...)
	}
	s.kinds = append(s.kinds, kind)
}

// emit writes the planned items.
func (s *lines) emit(items []item) {
	for _, it := range items {
		s.add(it.raw, it.kind, true)
		s.g.count(s, it)
	}
}

// count adds the item just written as line len(s.kinds) to the oracle.
func (g *sampleGen) count(s *lines, it item) {
	switch it.kind {
	case 't':
		g.tweetItem(it.t, it.raw)
	case 'c':
		g.controlItem()
	case 'd':
		g.deadItem(s.origin+":"+strconv.Itoa(len(s.kinds)), it.cause)
	}
}

// tweetItem counts a tweet item whose stored bytes are raw (nil when the
// reader builds them, as for a tweet out of a v2 page).
func (g *sampleGen) tweetItem(t *tweet, raw []byte) {
	g.y.read++
	g.fc.Read++
	g.fc.Tweets++
	if prev, ok := g.seen[t.id]; ok {
		if raw == nil || !bytes.Equal(prev, raw) {
			panic(fmt.Sprintf("generator bug: copy of tweet %d is not byte-identical", t.id))
		}
		g.y.dups++
		return
	}
	g.seen[t.id] = bytes.Clone(raw)
	g.y.indexed(t)
}

func (g *sampleGen) controlItem() {
	g.y.read++
	g.y.skipped++
	g.fc.Read++
	g.fc.Skipped++
}

func (g *sampleGen) deadItem(origin, cause string) {
	g.y.read++
	g.y.dead++
	g.fc.Read++
	g.fc.DeadLettered++
	g.y.deadLetters = append(g.y.deadLetters, DeadLetter{Origin: origin, Cause: cause})
}

// beginFile starts the accounting of an input file.
func (g *sampleGen) beginFile(name, format string) {
	g.files = append(g.files, FileCount{Name: name, Format: format})
	g.fc = &g.files[len(g.files)-1]
}

// endFile adds a finished file.
func (g *sampleGen) endFile(name string, data []byte) {
	g.set.files = append(g.set.files, outFile{name: name, data: data})
	g.fc = nil
}

// stream returns a new JSON-lines stream named origin.
func (g *sampleGen) stream(origin, eol string) *lines {
	s := &lines{g: g, origin: origin, eol: eol}
	g.set.streams[origin] = s
	return s
}

// buildSample generates the sample of a seed.
func buildSample(seed uint64) *sampleSet {
	g := &sampleGen{
		seed:  seed,
		r:     rand.New(rand.NewPCG(seed, 0x5a3f1e)),
		y:     newTally(),
		seen:  map[uint64][]byte{},
		pools: map[string][]*user{},
		set:   &sampleSet{streams: map[string]*lines{}, docs: map[string]int{}},
	}
	g.b.r = g.r
	k := 0
	for _, w := range sampleLangs {
		l := langsByTag[w.tag]
		for i := 0; i < 40; i++ {
			u := newUser(g.r, l, k)
			k++
			g.pools[w.tag] = append(g.pools[w.tag], u)
			g.everyone = append(g.everyone, u)
		}
	}
	g.seedUser = newUser(g.r, langEN, k)
	g.seedUser.name, g.seedUser.screen = "user1", "u1scr"
	g.b.author = func(l *language) *user {
		p := g.pools[l.tag]
		if len(p) == 0 {
			p = g.pools["en"]
		}
		return p[g.r.IntN(len(p))]
	}
	g.b.anyone = func() *user { return g.everyone[g.r.IntN(len(g.everyone))] }

	g.plainStream()
	g.gzipStream()
	g.bzip2Stream()
	g.zstdStream()
	g.truncatedGzip()
	g.tarArchive()
	g.zipArchive()
	g.searchResponse()
	g.jsonArray()
	g.v2Pages()
	g.v2Flat()
	g.personalArchive()

	cmd := fmt.Sprintf("go run ./testdata/gen sample -seed %d -out testdata/sample", seed)
	g.set.exp = g.y.expected(cmd, seed, g.files)
	if err := g.set.exp.check(); err != nil {
		panic("generator bug: " + err.Error())
	}
	return g.set
}

// times returns n sorted random Unix milliseconds in [from, to).
func (g *sampleGen) times(from, to time.Time, n int) []int64 {
	span := to.Sub(from).Milliseconds()
	ms := make([]int64, n)
	for i := range ms {
		ms[i] = from.UnixMilli() + g.r.Int64N(span)
	}
	slices.Sort(ms)
	return ms
}

// tweets returns n tweet items in [from, to), written in style st.
func (g *sampleGen) tweets(from, to time.Time, n int, m *mix, st v1Style) []item {
	var items []item
	for _, ms := range g.times(from, to, n) {
		t := g.b.make(ms, m)
		items = append(items, item{ms: ms, kind: 't', t: t, raw: appendV1Tweet(nil, t, st)})
	}
	return items
}

// controls returns control messages of the given kinds in [from, to), and
// n deletes besides.
func (g *sampleGen) controls(from, to time.Time, kinds []int, deletes int) []item {
	for i := 0; i < deletes; i++ {
		kinds = append(kinds, ctlDelete)
	}
	ms := g.times(from, to, len(kinds))
	items := make([]item, len(kinds))
	for i, k := range kinds {
		items[i] = item{ms: ms[i], kind: 'c', raw: appendControl(nil, g.r, k, ms[i])}
	}
	return items
}

// keepAlives returns n blank keep-alive lines in [from, to): "\r" before
// the newline, as the streaming API sends them, or empty.
func (g *sampleGen) keepAlives(from, to time.Time, n int) []item {
	items := make([]item, n)
	for i, ms := range g.times(from, to, n) {
		raw := []byte("\r")
		if i%2 == 1 {
			raw = []byte{}
		}
		items[i] = item{ms: ms, kind: 'c', raw: raw}
	}
	return items
}

// deadTweet returns a tweet whose text holds the dead-letter probe word.
func (g *sampleGen) deadTweet(ms int64) *tweet {
	spec := g.b.shortSpec()
	spec.probe, spec.probeAfter = probeDead, 0
	spec.link = false
	return g.b.compose(ms, langEN, "en", g.b.author(langEN), spec)
}

// cutOff returns about the first 55% of a line: JSON cut off mid-value, on
// a UTF-8 boundary so that the damage is the JSON's alone.
func cutOff(raw []byte) []byte {
	n := len(raw) * 55 / 100
	for n > 0 && !utf8.RuneStart(raw[n]) {
		n--
	}
	return bytes.Clone(raw[:n])
}

// deadItems returns one item of every kind of damage a line can have.
func (g *sampleGen) deadItems(from, to time.Time) []item {
	ms := g.times(from, to, 7)
	var items []item
	add := func(i int, raw []byte, cause string) {
		items = append(items, item{ms: ms[i], kind: 'd', raw: raw, cause: cause})
	}
	add(0, cutOff(appendV1Tweet(nil, g.deadTweet(ms[0]), styleStreamLite)), causeBrokenJSON)
	add(1, []byte(`<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>`), causeNotJSON)
	add(2, []byte(`Exceeded connection limit for user`), causeNotJSON)
	add(3, g.invalidUTF8(ms[3], []byte{0xff, 0xfe}), causeUTF8)
	st := styleStreamLite
	st.drop = "created_at"
	add(4, appendV1Tweet(nil, g.deadTweet(ms[4]), st), causeCreatedAt)
	st.drop = "id_str"
	add(5, appendV1Tweet(nil, g.deadTweet(ms[5]), st), causeIDStr)
	t := g.deadTweet(ms[6])
	t.geo, t.place = geoImpossible, cities[4]
	t.lat, t.lon = 123, -0.1276
	add(6, appendV1Tweet(nil, t, styleStreamLite), causeLatitude)
	return items
}

// invalidUTF8 returns a tweet line whose text starts with the bytes bad,
// which are not UTF-8.
func (g *sampleGen) invalidUTF8(ms int64, bad []byte) []byte {
	raw := appendV1Tweet(nil, g.deadTweet(ms), styleREST)
	i := bytes.Index(raw, []byte(`"text":"`)) + len(`"text":"`)
	raw = slices.Concat(raw[:i], bad, raw[i:])
	if utf8.Valid(raw) {
		panic("generator bug: invalid UTF-8 line is valid")
	}
	return raw
}

// arrange sorts items by time and puts two tweets first, so that a reader
// sniffing the first lines sees JSON lines.
func arrange(items []item) []item {
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.ms < b.ms:
			return -1
		case a.ms > b.ms:
			return 1
		}
		return 0
	})
	for want := 0; want < 2; want++ {
		for i := want; i < len(items); i++ {
			if items[i].kind == 't' {
				it := items[i]
				copy(items[want+1:i+1], items[want:i])
				items[want] = it
				break
			}
		}
	}
	return items
}

// insert puts it into items at a random place after the first two.
func (g *sampleGen) insert(items []item, it item) []item {
	i := 2 + g.r.IntN(len(items)-1)
	return slices.Insert(items, i, it)
}

// redeliver repeats a tweet of items a few lines after it, byte for byte.
func (g *sampleGen) redeliver(items []item) []item {
	for {
		i := 2 + g.r.IntN(len(items)-4)
		if items[i].kind == 't' {
			j := min(len(items), i+1+g.r.IntN(25))
			return slices.Insert(items, j, items[i])
		}
	}
}

// keep remembers a tweet of items for another file to repeat.
func (g *sampleGen) keep(items []item) {
	for {
		it := items[2+g.r.IntN(len(items)-2)]
		if it.kind == 't' {
			g.kept = append(g.kept, it)
			return
		}
	}
}

// collidingPair returns two different tweets created in the same
// millisecond by the same machine, with consecutive ids that a float64
// cannot tell apart: a reader that takes the numeric "id" instead of
// id_str merges them.
func (g *sampleGen) collidingPair(ms int64, st v1Style) []item {
	m := sampleMix
	m.retweet, m.quote = 0, 0
	a, b := g.b.make(ms, &m), g.b.make(ms, &m)
	for seq := uint64(1); ; seq++ {
		id := snowflake(ms, 7, 3, seq)
		ma, mb := appendMangledID(nil, id), appendMangledID(nil, id+1)
		if bytes.Equal(ma, mb) && unmangleable(id) == id && unmangleable(id+1) == id+1 {
			a.id, b.id = id, id+1
			break
		}
	}
	return []item{
		{ms: ms, kind: 't', t: a, raw: appendV1Tweet(nil, a, st)},
		{ms: ms, kind: 't', t: b, raw: appendV1Tweet(nil, b, st)},
	}
}

// seedTweet returns the seed's example tweet: "A tweet about
// #ApacheAccumulo and #ApacheFlink and" by user1 (@u1scr).
func (g *sampleGen) seedTweet(ms int64) *tweet {
	c := &g.b.c
	c.reset(g.r, langEN)
	c.piece(pieceWord, "A")
	c.piece(pieceWord, "tweet")
	c.piece(pieceWord, "about")
	c.entityPiece(entity{kind: pieceTag, text: "ApacheAccumulo"})
	c.piece(pieceWord, "and")
	c.entityPiece(entity{kind: pieceTag, text: "ApacheFlink"})
	c.piece(pieceWord, "and")
	t := &tweet{id: snowflakeAt(g.r, ms), ms: ms, lang: "en", user: g.seedUser, source: 2, text: string(c.buf)}
	t.ents = slices.Clone(c.ents)
	t.bounds = slices.Clone(c.bounds)
	if t.text != "A tweet about #ApacheAccumulo and #ApacheFlink and" {
		panic("generator bug: seed tweet text " + t.text)
	}
	return t
}

// plainStream writes v1-stream-12a.jsonl: a plain JSON-lines stream with
// the seed tweet, one control message of every kind, keep-alives, a
// tweet re-delivered, two tweets whose float ids collide, and one line of
// every kind of damage.
func (g *sampleGen) plainStream() {
	const name = "v1-stream-12a.jsonl"
	from, to := at(12, 0, 0), at(12, 20, 0)
	g.beginFile(name, "JSON lines")
	items := g.tweets(from, to, 50, &sampleMix, styleStreamLite)
	seed := g.seedTweet(at(12, 3, 7).UnixMilli() + 412)
	items = append(items, item{ms: seed.ms, kind: 't', t: seed, raw: appendV1Tweet(nil, seed, styleStreamLite)})
	items = append(items, g.collidingPair(at(12, 9, 41).UnixMilli()+77, styleStreamLite)...)
	items = append(items, g.controls(from, to, []int{ctlDelete, ctlLimit, ctlScrubGeo, ctlStatusWithheld, ctlUserWithheld, ctlWarning}, 8)...)
	items = append(items, g.keepAlives(from, to, 5)...)
	items = append(items, g.deadItems(from, to)...)
	items = arrange(items)
	items = g.redeliver(items)
	// The stream ends as the server closes it.
	items = append(items, item{ms: to.UnixMilli(), kind: 'c', raw: appendControl(nil, g.r, ctlDisconnect, to.UnixMilli())})
	g.keep(items)
	s := g.stream(name, "\n")
	s.emit(items)
	g.endFile(name, s.buf)
}

// gzipStream writes v1-stream-12b.json.gz: full stream tweets with
// deletes, a re-delivered tweet, a tweet of v1-stream-12a.jsonl repeated
// byte for byte, and a second tweet by the seed's user.
func (g *sampleGen) gzipStream() {
	const name = "v1-stream-12b.json.gz"
	from, to := at(12, 15, 0), at(12, 40, 0)
	g.beginFile(name, "JSON lines, gzip")
	items := g.tweets(from, to, 240, &sampleMix, styleStream)
	items = append(items, g.controls(from, to, []int{ctlLimit}, 22)...)
	items = append(items, g.keepAlives(from, to, 2)...)
	t := g.b.compose(at(12, 31, 2).UnixMilli()+5, langEN, "en", g.seedUser, textSpec{minRunes: 40, maxRunes: 90, tags: []string{"ApacheFlink"}, mention: g.b.anyone})
	items = append(items, item{ms: t.ms, kind: 't', t: t, raw: appendV1Tweet(nil, t, styleStream)})
	items = arrange(items)
	items = g.redeliver(items)
	items = g.insert(items, g.kept[0])
	g.keep(items)
	s := g.stream(name, "\n")
	s.emit(items)
	g.endFile(name, gzipBytes(s.buf))
}

// bzip2Stream writes v1-stream-12c.json.bz2, with CRLF line ends as the
// streaming API delimits messages, and a line of garbage.
func (g *sampleGen) bzip2Stream() {
	const name = "v1-stream-12c.json.bz2"
	from, to := at(12, 40, 0), at(13, 0, 0)
	g.beginFile(name, "JSON lines, bzip2, CRLF")
	items := g.tweets(from, to, 270, &sampleMix, styleStream)
	items = append(items, g.controls(from, to, []int{ctlLimit, ctlScrubGeo}, 26)...)
	k := g.keepAlives(from, to, 2)
	for i := range k {
		k[i].raw = []byte{} // the CRLF line end makes them "\r\n"
	}
	items = append(items, k...)
	items = append(items, item{ms: at(12, 51, 30).UnixMilli(), kind: 'd', raw: []byte(`{"created_at":"Sun Nov 01 12:51:30 +0000 2026","id":2`), cause: causeBrokenJSON})
	items = arrange(items)
	s := g.stream(name, "\r\n")
	s.emit(items)
	g.endFile(name, bzip2Bytes(s.buf))
}

// zstdStream writes v1-stream-13d.json.zst, with a line of invalid UTF-8.
func (g *sampleGen) zstdStream() {
	const name = "v1-stream-13d.json.zst"
	from, to := at(13, 0, 0), at(13, 20, 0)
	g.beginFile(name, "JSON lines, zstd")
	items := g.tweets(from, to, 280, &sampleMix, styleStream)
	items = append(items, g.controls(from, to, []int{ctlStatusWithheld}, 20)...)
	ms := at(13, 11, 11).UnixMilli()
	items = append(items, item{ms: ms, kind: 'd', raw: g.invalidUTF8(ms, []byte("\xc3\x28")), cause: causeUTF8})
	items = arrange(items)
	s := g.stream(name, "\n")
	s.emit(items)
	g.endFile(name, zstdBytes(s.buf))
}

// truncatedGzip writes v1-stream-13e-truncated.json.gz: two gzip members,
// the second cut off in the middle of a line. A reader yields the complete
// lines and then one faulted record (the partial line).
func (g *sampleGen) truncatedGzip() {
	const name = "v1-stream-13e-truncated.json.gz"
	g.beginFile(name, "JSON lines, gzip, 2 members, the last truncated")
	s := g.stream(name, "\n")
	first := arrange(append(g.tweets(at(13, 20, 0), at(13, 25, 0), 90, &sampleMix, styleStream), g.controls(at(13, 20, 0), at(13, 25, 0), nil, 8)...))
	s.emit(first)
	member1 := gzipBytes(s.buf)
	start := len(s.buf)
	second := arrange(append(g.tweets(at(13, 25, 0), at(13, 30, 0), 60, &sampleMix, styleStream), g.controls(at(13, 25, 0), at(13, 30, 0), nil, 6)...))
	s.emit(second)
	complete := s.buf[start:]
	partial := cutOff(appendV1Tweet(nil, g.deadTweet(at(13, 29, 59).UnixMilli()), styleStream))
	s.add(partial, 'd', false)
	g.deadItem(name+":"+strconv.Itoa(len(s.kinds)), causeTruncated)
	member2 := truncatedGzipMember(complete, partial)
	g.endFile(name, slices.Concat(member1, member2))
}

// tarArchive writes twitter-stream-2026-11-01.tar in the Internet Archive
// stream-grab layout: directories, then one compressed JSON-lines file per
// minute, 2026/11/01/13/30.json.bz2 to 13/39 (two of them gzip). The last
// member ends with a cut-off line, one repeats a tweet of
// v1-stream-12a.jsonl byte for byte.
func (g *sampleGen) tarArchive() {
	const name = "twitter-stream-2026-11-01.tar"
	g.beginFile(name, "tar of per-minute JSON lines, bzip2 and gzip")
	ms := []member{
		{name: "2026/", mod: at(13, 40, 0)},
		{name: "2026/11/", mod: at(13, 40, 0)},
		{name: "2026/11/01/", mod: at(13, 40, 0)},
		{name: "2026/11/01/13/", mod: at(13, 40, 0)},
	}
	for minute := 30; minute < 40; minute++ {
		ext := ".json.bz2"
		if minute == 34 || minute == 37 {
			ext = ".json.gz"
		}
		mname := fmt.Sprintf("2026/11/01/13/%02d%s", minute, ext)
		from, to := at(13, minute, 0), at(13, minute+1, 0)
		items := g.tweets(from, to, 32, &sampleMix, styleStream)
		items = append(items, g.controls(from, to, nil, 4+g.r.IntN(3))...)
		if minute == 31 {
			items = append(items, g.controls(from, to, []int{ctlLimit, ctlUserWithheld}, 0)...)
		}
		if minute == 36 {
			items = append(items, g.keepAlives(from, to, 1)...)
		}
		items = arrange(items)
		if minute == 32 {
			items = g.insert(items, g.kept[0])
		}
		s := g.stream(name+"!"+mname, "\n")
		s.emit(items)
		if minute == 39 {
			// The grab stopped mid-line: the member's last line has no end.
			cut := cutOff(appendV1Tweet(nil, g.deadTweet(at(13, 39, 59).UnixMilli()), styleStream))
			s.add(cut, 'd', false)
			g.deadItem(s.origin+":"+strconv.Itoa(len(s.kinds)), causeBrokenJSON)
		}
		data := bzip2Bytes(s.buf)
		if ext == ".json.gz" {
			data = gzipBytes(s.buf)
		}
		ms = append(ms, member{name: mname, data: data, mod: to})
	}
	g.endFile(name, tarBytes(ms))
}

// zipArchive writes twitter-stream-2026-11-01-14.zip: per-minute JSON-lines
// files 2026/11/01/14/00.json to 04.json, and 05.json.gz.
func (g *sampleGen) zipArchive() {
	const name = "twitter-stream-2026-11-01-14.zip"
	g.beginFile(name, "zip of per-minute JSON lines, plain and gzip")
	ms := []member{{name: "2026/11/01/14/", mod: at(14, 6, 0)}}
	for minute := 0; minute < 6; minute++ {
		ext := ".json"
		if minute == 5 {
			ext = ".json.gz"
		}
		mname := fmt.Sprintf("2026/11/01/14/%02d%s", minute, ext)
		from, to := at(14, minute, 0), at(14, minute+1, 0)
		items := g.tweets(from, to, 28, &sampleMix, styleStreamLite)
		items = append(items, g.controls(from, to, nil, 3)...)
		items = arrange(items)
		s := g.stream(name+"!"+mname, "\n")
		s.emit(items)
		data := s.buf
		if ext == ".json.gz" {
			data = gzipBytes(s.buf)
		}
		ms = append(ms, member{name: mname, data: data, mod: to})
	}
	g.endFile(name, zipBytes(ms))
}

// newestFirst sorts tweets newest first, as search results come.
func newestFirst(ts []*tweet) {
	slices.SortStableFunc(ts, func(a, b *tweet) int {
		switch {
		case a.ms > b.ms:
			return -1
		case a.ms < b.ms:
			return 1
		}
		return 0
	})
}

// makeTweets returns n tweets of mix m in [from, to), newest first.
func (g *sampleGen) makeTweets(from, to time.Time, n int, m *mix) []*tweet {
	var ts []*tweet
	for _, ms := range g.times(from, to, n) {
		ts = append(ts, g.b.make(ms, m))
	}
	newestFirst(ts)
	return ts
}

// indent pretty-prints compact JSON with two spaces.
func indent(compact []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		panic("generator bug: " + err.Error())
	}
	return buf.Bytes()
}

// searchResponse writes v1-search-ApacheFlink.json: one pretty-printed
// v1.1 search response {"statuses": [...], "search_metadata": {...}} in
// tweet_mode=extended (full_text), every status about #ApacheFlink.
func (g *sampleGen) searchResponse() {
	const name = "v1-search-ApacheFlink.json"
	g.beginFile(name, "v1.1 search response (pretty-printed)")
	m := sampleMix
	m.tags = []string{"ApacheFlink"}
	ts := g.makeTweets(at(14, 6, 0), at(14, 20, 0), 30, &m)
	b := []byte(`{"statuses":[`)
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendV1Tweet(b, t, styleSearch)
		g.tweetItem(t, nil)
	}
	b = append(b, `],"search_metadata":{"completed_in":0.047,"max_id":`...)
	b = appendMangledID(b, ts[0].id)
	b = appendKUintStr(b, "max_id_str", ts[0].id)
	b = append(b, `,"next_results":"?max_id=`...)
	b = strconv.AppendUint(b, ts[len(ts)-1].id-1, 10)
	b = append(b, `&q=%23ApacheFlink&count=30&include_entities=1&tweet_mode=extended","query":"%23ApacheFlink","refresh_url":"?since_id=`...)
	b = strconv.AppendUint(b, ts[0].id, 10)
	b = append(b, `&q=%23ApacheFlink&include_entities=1","count":30,"since_id":0,"since_id_str":"0"}}`...)
	g.set.docs[name] = len(ts)
	g.endFile(name, append(indent(b), '\n'))
}

// jsonArray writes v1-array.json: a JSON array of v1.1 tweets, one per
// line, holding a tweet of v1-stream-12b.json.gz byte for byte.
func (g *sampleGen) jsonArray() {
	const name = "v1-array.json"
	g.beginFile(name, "JSON array of v1.1 tweets")
	items := g.tweets(at(14, 20, 0), at(14, 30, 0), 30, &sampleMix, styleREST)
	items = g.insert(items, g.kept[1])
	b := []byte("[\n")
	for i, it := range items {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, it.raw...)
		g.tweetItem(it.t, it.raw)
	}
	b = append(b, "\n]\n"...)
	g.set.docs[name] = len(items)
	g.endFile(name, b)
}

// v2Pages writes v2-twarc2-pages.jsonl: twarc2 output, one v2 search page
// per line with its includes (users, places, and the retweeted tweets
// whose full text the retweets truncate).
func (g *sampleGen) v2Pages() {
	const name = "v2-twarc2-pages.jsonl"
	g.beginFile(name, "API v2 pages, one per line (twarc2)")
	ts := g.makeTweets(at(14, 30, 0), at(14, 45, 0), 80, &sampleMixV2)
	retrieved := at(15, 2, 17)
	s := g.stream(name, "\n")
	for p := 0; p < len(ts); p += 10 {
		page := ts[p:min(p+10, len(ts))]
		next := ""
		if p+10 < len(ts) {
			next = "b26v89c19zqg8o3fpzhk0tbyp9z" + randToken(g.r, 18)
		}
		s.add(appendV2PageLine(nil, page, next, retrieved), 'p', true)
		for _, t := range page {
			g.tweetItem(t, nil)
		}
	}
	g.set.docs[name] = len(ts)
	g.endFile(name, s.buf)
}

// v2Flat writes v2-twarc2-flat.jsonl.gz: twarc2 flattened output, one v2
// tweet per line with its author, place and retweeted tweet inlined.
func (g *sampleGen) v2Flat() {
	const name = "v2-twarc2-flat.jsonl.gz"
	g.beginFile(name, "API v2 tweets, flattened, one per line (twarc2), gzip")
	ts := g.makeTweets(at(14, 45, 0), at(14, 55, 0), 70, &sampleMixV2)
	retrieved := at(15, 3, 2)
	s := g.stream(name, "\n")
	for _, t := range ts {
		raw := appendV2Tweet(nil, t, v2Flat, retrieved)
		s.add(raw, 't', true)
		g.tweetItem(t, raw)
	}
	g.endFile(name, gzipBytes(s.buf))
}

// personalArchive writes tweets.js: a personal archive's tweets, the
// owner's own (no user object) in full_text, newest first, pretty-printed
// as the archive does ("key" : value).
func (g *sampleGen) personalArchive() {
	const name = "tweets.js"
	g.beginFile(name, "personal archive tweets.js")
	owner := g.pools["es"][0]
	m := mix{langs: []weighted{{"es", 550}, {"en", 450}}, retweet: 250, extended: 150, reply: 100}
	g.b.author = func(l *language) *user { return owner }
	ts := g.makeTweets(at(12, 0, 0), at(15, 0, 0), 50, &m)
	g.b.author = func(l *language) *user {
		p := g.pools[l.tag]
		return p[g.r.IntN(len(p))]
	}
	var b []byte
	b = append(b, '[')
	for i, t := range ts {
		t.archive, t.noUser = true, true
		if t.rt != nil {
			t.rt.user = g.b.author(langsByTag[t.rt.lang])
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendArchiveTweet(b, t)
		g.tweetItem(t, nil)
	}
	b = append(b, ']')
	out := append([]byte("window.YTD.tweets.part0 = "), spaceColons(indent(b))...)
	g.set.docs[name] = len(ts)
	g.endFile(name, out)
}

// appendArchiveTweet appends a personal archive element {"tweet": {...}}:
// strings for numbers, full_text, and no user.
func appendArchiveTweet(b []byte, t *tweet) []byte {
	text, ents, shift := t.text, t.ents, 0
	var rtUser *user
	if t.rt != nil {
		text, _ = rtText(t)
		ents, shift, rtUser = t.rt.ents, runeLen("RT @"+t.rt.user.screen+": "), t.rt.user
	}
	b = append(b, `{"tweet":{"edit_info":{"initial":{"editTweetIds":["`...)
	b = strconv.AppendUint(b, t.id, 10)
	b = append(b, `"],"editableUntil":"`...)
	b = appendISODate(b, t.created().Add(time.Hour))
	b = append(b, `","editsRemaining":"5","isEditEligible":`...)
	b = strconv.AppendBool(b, t.rt == nil)
	b = append(b, `}},"retweeted":false`...)
	b = appendKStr(b, "source", sources[t.source], false)
	b = append(b, `,"entities":{"hashtags":[`...)
	n := 0
	for i := range ents {
		e := &ents[i]
		if e.kind != pieceTag || e.end+shift > runeLen(text) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"text":`...)
		b = appendString(b, e.text, false)
		b = appendArchiveIndices(b, e.start+shift, e.end+shift)
		b = append(b, '}')
	}
	b = append(b, `],"symbols":[],"user_mentions":[`...)
	if rtUser != nil {
		b = append(b, `{"name":`...)
		b = appendString(b, rtUser.name, false)
		b = appendKStr(b, "screen_name", rtUser.screen, false)
		b = appendArchiveIndices(b, 3, 4+runeLen(rtUser.screen))
		b = appendKUintStr(b, "id_str", rtUser.id)
		b = appendKUintStr(b, "id", rtUser.id)
		b = append(b, '}')
	}
	b = append(b, `],"urls":[]}`...)
	b = append(b, `,"display_text_range":["0","`...)
	b = strconv.AppendInt(b, int64(runeLen(text)), 10)
	b = append(b, `"]`...)
	b = appendKStr(b, "favorite_count", strconv.Itoa(t.favorites), false)
	if t.replyTo != nil {
		b = appendKUintStr(b, "in_reply_to_status_id_str", t.replyTo.id)
		b = appendKUintStr(b, "in_reply_to_user_id", t.replyTo.user.id)
		b = appendKStr(b, "in_reply_to_screen_name", t.replyTo.user.screen, false)
	}
	b = appendKUintStr(b, "id_str", t.id)
	b = appendKBool(b, "truncated", false)
	b = appendKStr(b, "retweet_count", strconv.Itoa(t.retweets), false)
	b = appendKUintStr(b, "id", t.id)
	b = append(b, `,"created_at":"`...)
	b = appendRubyDate(b, t.created())
	b = append(b, `","favorited":false`...)
	b = appendKStr(b, "full_text", text, false)
	b = appendKStr(b, "lang", t.lang, false)
	return append(b, "}}"...)
}

// appendArchiveIndices appends `,"indices":["s","e"]`.
func appendArchiveIndices(b []byte, s, e int) []byte {
	b = append(b, `,"indices":["`...)
	b = strconv.AppendInt(b, int64(s), 10)
	b = append(b, `","`...)
	b = strconv.AppendInt(b, int64(e), 10)
	return append(b, `"]`...)
}

// spaceColons rewrites the `": ` after each key of pretty-printed JSON as
// `" : `, the personal archive's style.
func spaceColons(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/20)
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ':':
			out = append(out, ' ')
		}
		out = append(out, c)
	}
	return out
}
