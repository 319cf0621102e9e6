package schemas

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// Reject is a record or tweet that cannot be indexed, with where and why.
type Reject struct {
	// Origin is where the rejected bytes start: the record's origin, with
	// the line advanced to the rejected element inside a multi-line document.
	Origin Origin
	// Reason says why, e.g. "broken JSON: ..." or "missing created_at".
	Reason string
	// Raw holds the rejected bytes: the whole record, or the one element of
	// a document that was rejected. It aliases Record.Data.
	Raw []byte
}

// Decoded collects what one or more records decode to. Decode appends to
// it; Reset empties it for reuse.
type Decoded struct {
	// Tweets are the tweets found, in input order.
	Tweets []Tweet
	// Controls counts what was read and deliberately skipped: stream control
	// messages (delete, limit, scrub_geo, status_withheld, user_withheld,
	// warning, disconnect, v2 "errors"-only objects), blank keep-alive lines,
	// empty result pages, v2 compliance events, and records that are not
	// tweets (v2 users, lists, tweet counts, spaces).
	Controls int
	// Skipped breaks Controls down by kind.
	Skipped [NumSkipKinds]int
	// Rejects are the records and tweets that cannot be indexed.
	Rejects []Reject
	// Deletes are the ids of tweets that compliance messages among the
	// skipped items say were deleted: v1.1 {"delete": {"status": ...}} and
	// v2 compliance events {"id": ..., "action": "delete"}. (The messages
	// are counted in Skipped as SkipCompliance too.)
	Deletes []uint64
	// Notices are the compliance messages among the skipped items that are
	// neither deletes nor ignored: scrub_geo, status_withheld,
	// user_withheld, and v2 compliance events other than delete. (They
	// are counted in Skipped as SkipCompliance too.)
	Notices []Notice
}

// Notice is a compliance message other than a delete.
type Notice struct {
	// Kind is the message's kind: "scrub_geo", "status_withheld" or
	// "user_withheld" (v1.1), or a v2 compliance event's action
	// ("scrub_geo", "withheld", "protect", ...).
	Kind string
	// V2 says the notice is a v2 compliance event, whose ID may be a
	// tweet's (a tweet compliance job) or a user's (a user compliance
	// job): the event does not say which.
	V2 bool
	// ID is the id the notice is about: the user of scrub_geo and
	// user_withheld, the tweet of status_withheld, the event's id (v2).
	ID uint64
	// UpTo is scrub_geo's up_to_status_id: the user's tweets up to this
	// id lose their location. 0 for the other kinds (and for v2).
	UpTo uint64
	// Raw holds the message's bytes. It aliases Record.Data.
	Raw []byte
}

// Reset empties d, keeping its capacity.
func (d *Decoded) Reset() {
	clear(d.Tweets)
	d.Tweets = d.Tweets[:0]
	clear(d.Rejects)
	d.Rejects = d.Rejects[:0]
	d.Controls = 0
	d.Skipped = [NumSkipKinds]int{}
	d.Deletes = d.Deletes[:0]
	clear(d.Notices)
	d.Notices = d.Notices[:0]
}

// skip counts one item skipped as kind.
func (d *Decoded) skip(kind SkipKind) {
	d.Controls++
	d.Skipped[kind]++
}

// Decoder turns records into tweets. It accepts every format of the
// docs/input-formats.md:
//
//   - a v1.1 tweet, one per record (a stream line), or a personal archive
//     element {"tweet": {...}};
//   - a JSON array whose elements are any of the documents listed here, and
//     a personal archive's tweets.js ("window.YTD.tweets.part0 = [...]");
//   - a v1.1 search response {"statuses": [...]};
//   - a v2 single-tweet document {"data": {...}, "includes": {...}} (a
//     filtered stream line), a v2 page {"data": [...], "includes": {...}}
//     (a search response or a twarc2 line), and a flattened twarc2 tweet;
//   - stream control messages and blank keep-alive lines, which are counted
//     in Decoded.Controls and otherwise skipped.
//
// Tweet.JSON, the stored bytes, is the tweet exactly as read when the
// record or array element is itself a tweet (the element's bytes without
// surrounding white space); such a Tweet.JSON aliases Record.Data, which
// must therefore not be modified while the tweet is in use. A tweet taken
// out of a v2 page gets a newly allocated single-tweet document, built
// deterministically from the page:
//
//	{"data":<the tweet>,"includes":{"users":[...],"places":[...],"tweets":[...]}}
//
// where the includes are the page's own bytes of the objects the tweet
// references (its author, its place, the tweets it references and their
// authors), in page order, with empty lists (and an empty includes) left
// out. Decoding such a document again gives the same tweet.
//
// A Decoder holds a JSON parser and scratch space; it is not safe for
// concurrent use. Reuse it: the zero value is ready, and a warm Decoder
// allocates only the strings of the tweets it returns.
type Decoder struct {
	p     fastjson.Parser
	lines lineCursor
	rec   Record // the record being decoded
	place Origin // rec.Place()

	// includes of the current v2 document or page.
	inc includes
	// spans of the current page's data elements.
	dataSpans []span
}

// maxNesting bounds how deeply wrappers ({"tweet": ...}, arrays, search
// responses) may nest inside one record.
const maxNesting = 8

// Decode decodes one record and appends its tweets, control messages and
// rejects to out. Every record adds at least one of them: a record that
// holds nothing to index and nothing wrong (an empty array, an empty page)
// counts as one control, so that the counts of a run reconcile.
func (d *Decoder) Decode(rec Record, out *Decoded) {
	if rec.Fault != "" {
		out.Rejects = append(out.Rejects, Reject{Origin: rec.Place(), Reason: rec.Fault, Raw: rec.Data})
		return
	}
	data := rec.Data
	start, end := trimSpace(data)
	if start == end {
		out.skip(SkipControl)
		return
	}
	if !utf8.Valid(data) {
		out.Rejects = append(out.Rejects, Reject{Origin: rec.Place(), Reason: "invalid UTF-8", Raw: data})
		return
	}
	d.rec, d.place = rec, rec.Place()
	d.lines.reset()

	before := len(out.Tweets) + out.Controls + len(out.Rejects)
	switch data[start] {
	case '[':
		d.decodeArray(out, start, end, 0)
	case '{':
		d.decodeDocument(out, start, end, 0)
	default:
		// A personal archive's tweets.js: "window.YTD.tweets.part0 = [...]".
		if i := bytes.IndexByte(data[start:end], '['); i > 0 && bytes.IndexByte(data[start:start+i], '=') >= 0 {
			d.decodeArray(out, start+i, end, 0)
			break
		}
		d.decodeDocument(out, start, end, 0)
	}
	if len(out.Tweets)+out.Controls+len(out.Rejects) == before {
		out.skip(SkipControl)
	}
	d.rec = Record{} // do not keep the record's bytes alive
	if len(data) > releaseParserBytes {
		// The parser keeps what it grew for its largest document (a copy
		// of it, and about 80 bytes for each of its JSON values: 80 MB for
		// a 2 MB array of a million numbers) for as long as it lives, and
		// the collector scans it at every cycle.
		d.p = fastjson.Parser{}
	}
}

// releaseParserBytes is the size of a record after which the Decoder lets
// go of its parser's memory: far above a tweet (2-10 KB), above a page of
// a hundred of them.
const releaseParserBytes = 1 << 20

// decodeDocument parses data[start:end] as one JSON document and decodes it.
func (d *Decoder) decodeDocument(out *Decoded, start, end, depth int) {
	raw := d.rec.Data[start:end]
	v, err := d.p.ParseBytes(raw)
	if err != nil {
		d.reject(out, start, raw, brokenJSON(err))
		return
	}
	d.decodeValue(out, v, start, end, depth)
}

// decodeValue decodes the parsed value v whose bytes are data[start:end].
func (d *Decoder) decodeValue(out *Decoded, v *fastjson.Value, start, end, depth int) {
	if v.Type() != fastjson.TypeObject {
		d.reject(out, start, d.rec.Data[start:end], "not a tweet: JSON "+v.Type().String())
		return
	}
	if depth > maxNesting {
		d.reject(out, start, d.rec.Data[start:end], "not a tweet: nested too deeply")
		return
	}
	var f fields
	f.collect(v)
	if f.control {
		out.skip(f.controlKind)
		if id, ok := deletedID(v); ok {
			out.Deletes = append(out.Deletes, id)
		} else if n, ok := noticeOf(v); ok {
			n.Raw = d.rec.Data[start:end]
			out.Notices = append(out.Notices, n)
		}
		return
	}
	if kind, ok := f.notATweet(); ok {
		out.skip(kind)
		if kind == SkipCompliance {
			action := string(v.GetStringBytes("action"))
			id, err := strconv.ParseUint(string(v.GetStringBytes("id")), 10, 64)
			switch {
			case err != nil || id == 0:
			case action == "delete":
				out.Deletes = append(out.Deletes, id)
			case action != "":
				out.Notices = append(out.Notices, Notice{Kind: action, V2: true, ID: id, Raw: d.rec.Data[start:end]})
			}
		}
		return
	}
	d.decodeObject(out, v, &f, start, end, depth)
}

// deletedID returns the tweet id of a v1.1 delete notice,
// {"delete": {"status": {"id_str": ..., "id": ...}, ...}}.
func deletedID(v *fastjson.Value) (uint64, bool) {
	st := v.Get("delete", "status")
	if st == nil {
		return 0, false
	}
	if s := st.GetStringBytes("id_str"); len(s) > 0 {
		id, err := strconv.ParseUint(string(s), 10, 64)
		return id, err == nil && id != 0
	}
	return 0, false // the numeric id of v1.1 is float-mangled: never trusted
}

// noticeOf returns the notice of a v1.1 scrub_geo, status_withheld or
// user_withheld message (ids from the *_str members: the numeric ones of
// v1.1 are float-mangled).
func noticeOf(v *fastjson.Value) (Notice, bool) {
	idOf := func(o *fastjson.Value, key string) uint64 {
		id, _ := strconv.ParseUint(string(o.GetStringBytes(key)), 10, 64)
		return id
	}
	if o := v.Get("scrub_geo"); o != nil {
		n := Notice{Kind: "scrub_geo", ID: idOf(o, "user_id_str"), UpTo: idOf(o, "up_to_status_id_str")}
		return n, n.ID != 0 && n.UpTo != 0
	}
	if o := v.Get("status_withheld"); o != nil {
		n := Notice{Kind: "status_withheld", ID: idOf(o, "id_str")}
		if n.ID == 0 {
			n.ID = exactID(o.Get("id"))
		}
		return n, n.ID != 0
	}
	if o := v.Get("user_withheld"); o != nil {
		n := Notice{Kind: "user_withheld", ID: idOf(o, "id_str")}
		if n.ID == 0 {
			n.ID = exactID(o.Get("id"))
		}
		return n, n.ID != 0
	}
	return Notice{}, false
}

// exactID returns a numeric JSON id as its digits are written (fastjson
// keeps a number's text), or 0 if it is not an integer. (A tweet's
// numeric id may have been rounded by a float64 on its way, which is why
// tweets are read by id_str; a notice without an id_str has only this.)
func exactID(v *fastjson.Value) uint64 {
	if v == nil || v.Type() != fastjson.TypeNumber {
		return 0
	}
	id, err := strconv.ParseUint(v.String(), 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// TweetUserID returns the author's user id of a stored tweet's JSON:
// user.id_str (v1.1), data.author_id (a v2 document) or author_id (a
// flattened v2 tweet).
func TweetUserID(data []byte) (uint64, bool) {
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return 0, false
	}
	var s []byte
	switch {
	case v.Exists("user"):
		s = v.GetStringBytes("user", "id_str")
	case v.Exists("data"):
		s = v.GetStringBytes("data", "author_id")
	default:
		s = v.GetStringBytes("author_id")
	}
	id, err := strconv.ParseUint(string(s), 10, 64)
	return id, err == nil && id != 0
}

// decodeObject decodes an object that is not a control message nor a
// known record that is not a tweet.
func (d *Decoder) decodeObject(out *Decoded, v *fastjson.Value, f *fields, start, end, depth int) {
	switch {
	case f.data != nil:
		switch f.data.Type() {
		case fastjson.TypeObject:
			d.decodeV2Single(out, f, start, end)
		case fastjson.TypeArray:
			d.decodeV2Page(out, v, f, start, end)
		default:
			if f.errors != nil || f.data.Type() == fastjson.TypeNull {
				out.skip(SkipControl)
				return
			}
			d.reject(out, start, d.rec.Data[start:end], "not a tweet: v2 data is "+f.data.Type().String())
		}
	case f.createdAt == nil && (f.errors != nil || f.meta != nil):
		out.skip(SkipControl) // v2 stream error message, or a page with no results
	case f.createdAt == nil && f.statuses != nil && f.statuses.Type() == fastjson.TypeArray:
		d.decodeNested(out, f.statuses, "statuses", start, end, depth)
	case f.createdAt == nil && f.tweet != nil && f.tweet.Type() == fastjson.TypeObject:
		d.decodeNested(out, f.tweet, "tweet", start, end, depth)
	case f.isV1():
		d.decodeV1(out, f, start, end)
	case f.isV2():
		d.decodeV2Flat(out, f, start, end)
	default:
		d.reject(out, start, d.rec.Data[start:end], "not a tweet: unrecognized JSON object")
	}
}

// decodeNested decodes the member key of the object data[start:end], whose
// parsed value is v: a wrapped tweet or an array of statuses.
func (d *Decoder) decodeNested(out *Decoded, v *fastjson.Value, key string, start, end, depth int) {
	s, ok := memberSpan(d.rec.Data, start, key)
	if !ok {
		d.reject(out, start, d.rec.Data[start:end], "broken JSON: cannot locate "+key)
		return
	}
	if v.Type() != fastjson.TypeArray {
		d.decodeValue(out, v, s.start, s.end, depth+1)
		return
	}
	elems := v.GetArray()
	spans, ok := elementSpans(d.rec.Data, s.start, nil)
	if !ok || len(spans) != len(elems) {
		d.reject(out, start, d.rec.Data[start:end], "broken JSON: cannot locate elements of "+key)
		return
	}
	for i, e := range elems {
		d.decodeValue(out, e, spans[i].start, spans[i].end, depth+1)
	}
}

// decodeArray decodes the JSON array at data[start:end] element by element,
// each parsed on its own: a broken element is rejected alone, and a huge
// archive is never parsed in one piece.
func (d *Decoder) decodeArray(out *Decoded, start, end, depth int) {
	data := d.rec.Data[:end]
	i := skipWS(data, start+1)
	if i < len(data) && data[i] == ']' {
		d.arrayTail(out, i+1, end)
		return
	}
	for i < len(data) {
		e := skipValue(data, i)
		if e < 0 {
			d.reject(out, i, data[i:], "broken JSON: unterminated array element")
			return
		}
		if depth < maxNesting && data[i] == '[' {
			d.decodeArray(out, i, e, depth+1)
		} else {
			d.decodeDocument(out, i, e, depth+1)
		}
		i = skipWS(data, e)
		if i >= len(data) {
			break
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
			continue
		case ']':
			d.arrayTail(out, i+1, end)
			return
		}
		d.reject(out, i, data[i:], "broken JSON: missing ',' or ']' after array element")
		return
	}
	d.reject(out, start, data[start:], "broken JSON: missing ']'")
}

// arrayTail checks what follows a top-level array: white space, or the ';'
// ending a tweets.js statement.
func (d *Decoder) arrayTail(out *Decoded, i, end int) {
	data := d.rec.Data[:end]
	i = skipWS(data, i)
	if i < len(data) && data[i] == ';' {
		i = skipWS(data, i+1)
	}
	if i < len(data) {
		d.reject(out, i, data[i:], "broken JSON: unexpected data after array")
	}
}

// reject appends a reject for the bytes raw starting at offset start of the
// record.
func (d *Decoder) reject(out *Decoded, start int, raw []byte, reason string) {
	out.Rejects = append(out.Rejects, Reject{Origin: d.origin(start), Reason: reason, Raw: raw})
}

// origin returns the origin of the byte at offset off of the record.
func (d *Decoder) origin(off int) Origin {
	o := d.place
	o.Line += d.lines.count(d.rec.Data, off)
	return o
}

// lineCursor counts the newlines before an offset, incrementally for
// increasing offsets.
type lineCursor struct {
	pos   int
	lines int64
}

func (c *lineCursor) reset() { *c = lineCursor{} }

// count returns the number of '\n' in data[:off].
func (c *lineCursor) count(data []byte, off int) int64 {
	if off < c.pos {
		c.reset()
	}
	c.lines += int64(bytes.Count(data[c.pos:off], newline))
	c.pos = off
	return c.lines
}

var newline = []byte{'\n'}

// trimSpace returns the bounds of data without leading and trailing JSON
// white space (and a leading UTF-8 byte order mark).
func trimSpace(data []byte) (start, end int) {
	end = len(data)
	if bytes.HasPrefix(data, bom) {
		start = len(bom)
	}
	for start < end && isSpace(data[start]) {
		start++
	}
	for end > start && isSpace(data[end-1]) {
		end--
	}
	return start, end
}

var bom = []byte("\xef\xbb\xbf")

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// maxReasonLen caps the parser message quoted in a reject reason.
const maxReasonLen = 160

// brokenJSON turns a parser error into a short reject reason.
func brokenJSON(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "cannot parse JSON: ")
	if i := strings.Index(msg, "; unparsed tail"); i >= 0 {
		msg = msg[:i]
	}
	if strings.HasPrefix(msg, "unexpected tail") {
		msg = "unexpected data after the JSON value"
	}
	if len(msg) > maxReasonLen {
		msg = truncateUTF8(msg, maxReasonLen)
	}
	return "broken JSON: " + msg
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
