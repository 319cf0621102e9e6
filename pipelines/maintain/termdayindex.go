package maintain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// The term counts of many days at once, from the term index. The term
// index is keyed by term, field and row key (schemas.TermRow), and a row
// key begins with the tweet's second: one pass over the whole index, in
// key order, meets every (term, field) once, its rows in time order, and
// counts its tweets per day with no more memory than one term's days. The
// language, which the index does not hold, comes from the authors table
// (schemas.AuthorRow: a few bytes per stored tweet, keyed by row key and
// id), read first for the marked days into a table of row keys. That pass
// reads the term rows of every day the store holds, each in a few tens of
// nanoseconds, where the recount of a day from its raw rows decodes and
// tokenizes each of its tweets again (about 20 µs a tweet): it is chosen
// when the marked days hold a large enough part of the store's tweets
// (indexRatio), as after a fresh load, a load of more tweets of the same
// days, or of as many tweets of other days.
//
// The counts are those of the raw recount, tweet by tweet: the term index
// holds the terms of each stored tweet as the tokenizer makes them from
// it, in the field the per-day counts split (schemas.TermDayField). Only a
// row key that holds two tweets (a collision, pipelines/query/collide.go:
// its term rows are those of both, one row for a term both hold) is
// counted otherwise: its tweets are read from the raw table, decoded and
// counted one by one, as the raw recount counts them. The term rows of a
// row key the authors table does not hold for a marked day (no tweet
// stored there) count for nothing, as there is no raw row to count.
//
// The new counts are compared, day and field at a time, with those stored
// (both in term order: a merge), so that a count stored as it is is not
// written again and a stored count of a term the day no longer holds is
// deleted. The pass runs on the machine's cores, each over a range of
// terms.
//
// It reads the store directly (Pebble's iterators, its files' sizes): on
// Cassandra, whose term index is partitioned by term, field and hour, and
// in a store that predates the authors table, the days are recounted from
// their raw rows.

// indexRatio: the term index is read whole when the store's tweets are at
// most indexRatio times those of the marked days (in bytes of the authors
// table on disk). The pass costs about 3.5 µs of CPU per stored tweet
// (the writes of the counts included), on every core; the raw recount
// about 20 µs per tweet of the marked days, a day on one core.
const indexRatio = 8

// recountTermDaysFromIndex recounts the term counts of days (sorted) of
// the store s from its term index, when s is an embedded store with an
// authors table and the days hold enough of its tweets (see above), and
// removes their marks. It returns the counts written, and false when it
// did not recount (the raw recount is then the way).
func recountTermDaysFromIndex(ctx context.Context, s readWriter, days []uint16) (int, bool, error) {
	st, ok := storeOf(s)
	if !ok || st.BulkLoading() || len(days) == 0 {
		return 0, false, nil
	}
	if _, authors, err := s.Lookup(ctx, schemas.TableMeta, []byte(schemas.AuthorsParam)); err != nil || !authors {
		if err != nil {
			return 0, false, fmt.Errorf("recount of term days: reading %s: %w", schemas.AuthorsParam, err)
		}
		return 0, false, nil
	}
	spans := daySpans(days)
	all, err := st.EstimateBytes(schemas.TableAuthors, nil, nil)
	if err != nil {
		return 0, false, fmt.Errorf("recount of term days: %w", err)
	}
	var marked uint64
	for _, sp := range spans {
		n, err := st.EstimateBytes(schemas.TableAuthors, sp.lo[:], sp.hi[:])
		if err != nil {
			return 0, false, fmt.Errorf("recount of term days: %w", err)
		}
		marked += n
	}
	if all > indexRatio*marked { // (a store whose cells are all in memory yet: small)
		return 0, false, nil
	}
	if schemas.DayStart(days[len(days)-1])-schemas.DayStart(days[0]) >= 1<<32-86400 {
		return 0, false, nil // too far apart for rowLangs' codes
	}
	bounds, err := termBounds(st)
	if err != nil {
		return 0, false, fmt.Errorf("recount of term days: %w", err)
	}
	// A pass for each group of days of at most maxPassTweets tweets (one
	// day at least), whose marks it removes.
	written := 0
	for len(days) > 0 {
		langs, group, err := readLangs(ctx, st, days)
		if err != nil {
			return 0, false, fmt.Errorf("recount of term days: %w", err)
		}
		if langs == nil || langs.n == 0 {
			// No tweet (nothing to read the index for), or more languages
			// than the table codes: from the raw rows.
			_, n, err := recountDaysEach(ctx, s, days[:group], recountTermDay)
			if err != nil {
				return 0, false, err
			}
			written, days = written+n, days[group:]
			continue
		}
		n, err := termDaysPass(ctx, st, langs, days[:group], bounds)
		if err != nil {
			return 0, false, fmt.Errorf("recount of term days from the term index: %w", err)
		}
		if err := st.Sync(); err != nil {
			return 0, false, fmt.Errorf("recount of term days: %w", err)
		}
		marks := make([]schemas.Cell, 0, group)
		for _, d := range days[:group] {
			marks = append(marks, schemas.Cell{Table: schemas.TableMeta, Key: []byte(schemas.TermDayMark(d)), Delete: true})
		}
		if err := s.Write(ctx, marks); err != nil {
			return 0, false, fmt.Errorf("recount of term days: %w", err)
		}
		written, days = written+n, days[group:]
	}
	return written, true, nil
}

// maxPassTweets is the most tweets a pass over the term index counts (but
// for a day that holds more): their rowLangs takes 36 to 56 bytes a tweet
// while it is made (at most 230 MB). Days of more tweets are counted in
// as many passes as it takes.
var maxPassTweets = 4 << 20

// termBounds returns the bounds of the ranges of terms the passes read,
// from nil (the first term) to nil (past the last).
func termBounds(st *storeio.Store) ([][]byte, error) {
	splits, err := splitTerms(st, partsPerWorker*runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	// Cut at whole terms: every field of a term in one range.
	bounds := [][]byte{nil}
	for _, k := range splits {
		if i := bytes.IndexByte(k, 0); i >= 0 {
			k = k[:i]
		}
		if len(bounds) == 1 || bytes.Compare(bounds[len(bounds)-1], k) < 0 {
			bounds = append(bounds, k)
		}
	}
	return append(bounds, nil), nil
}

// termDaysPass counts the terms of days (sorted) in one pass over the
// term index, its ranges bounds read on the machine's cores, writes the
// counts and returns how many it wrote.
func termDaysPass(ctx context.Context, st *storeio.Store, langs *rowLangs, days []uint16, bounds [][]byte) (int, error) {
	collided, err := countCollided(ctx, st, langs)
	if err != nil {
		return 0, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	var written atomic.Int64
	for i := range len(bounds) - 1 {
		g.Go(func() error {
			w := termDayWorker{st: st, langs: langs, collided: collided, days: days, lo: bounds[i], hi: bounds[i+1]}
			err := w.run(gctx)
			written.Add(int64(w.written))
			return err
		})
	}
	err = g.Wait()
	return int(written.Load()), err
}

// partsPerWorker: the term index is cut into this many ranges per core,
// each read by the next core free, so that the cores finish together
// though the ranges' terms cost more or less than their bytes say.
const partsPerWorker = 4

// splitTerms returns keys of the term index that cut it into about n
// parts (storeio.Store.SplitKeys); tests set their own.
var splitTerms = func(st *storeio.Store, n int) ([][]byte, error) {
	return st.SplitKeys(schemas.TableTerms, n)
}

// daySpan is the row keys of consecutive days: [lo, hi).
type daySpan struct{ lo, hi schemas.RowKey }

// daySpans returns the row key ranges of days (sorted), consecutive days
// in one.
func daySpans(days []uint16) []daySpan {
	var spans []daySpan
	for i := 0; i < len(days); {
		j := i + 1
		for j < len(days) && days[j] == days[j-1]+1 {
			j++
		}
		spans = append(spans, daySpan{schemas.RowKeyStart(schemas.DayStart(days[i])), schemas.RowKeyStart(schemas.DayStart(days[j-1]) + 86400)})
		i = j
	}
	return spans
}

// rowLangs is the language of each tweet of the marked days, by row key:
// an open-addressing table of row keys, each coded in 8 bytes (the second
// after min, plus one, and the key's hash), with its language's index in
// names. A row key that holds more than one tweet has lang collidedLang.
type rowLangs struct {
	min, max int64 // the first and last second of the days read
	keys     []uint64
	lang     []uint16
	mask     uint64
	names    []string
	n        int              // tweets
	collided []schemas.RowKey // row keys of more than one tweet
}

const (
	collidedLang = 0xffff
	noLang       = 0xfffe // not a tweet of the marked days
)

// code returns the table's code of row key k, 0 for a row key outside the
// marked days' seconds.
func (l *rowLangs) code(k *schemas.RowKey) uint64 {
	sec := k.Seconds()
	if sec < l.min || sec > l.max {
		return 0
	}
	return uint64(sec-l.min+1)<<32 | uint64(k.Hash())
}

// slot returns where the search for code c begins.
func (l *rowLangs) slot(c uint64) uint64 {
	c ^= c >> 33
	c *= 0xff51afd7ed558ccd
	c ^= c >> 33
	return c & l.mask
}

// find returns the language of code c, searched from slot i.
func (l *rowLangs) find(c, i uint64) uint16 {
	if c == 0 {
		return noLang
	}
	for {
		switch l.keys[i] {
		case c:
			return l.lang[i]
		case 0:
			return noLang
		}
		i = (i + 1) & l.mask
	}
}

// insert sets the language of code c (not 0).
func (l *rowLangs) insert(c uint64, lang uint16) {
	i := l.slot(c)
	for l.keys[i] != 0 && l.keys[i] != c {
		i = (i + 1) & l.mask
	}
	l.keys[i], l.lang[i] = c, lang
}

// readLangs reads the authors rows of the first days (sorted) into a
// rowLangs, day by day, until their tweets reach maxPassTweets, and
// returns how many days it read (one at least). A nil rowLangs says the
// days hold more languages than it codes.
func readLangs(ctx context.Context, st *storeio.Store, days []uint16) (*rowLangs, int, error) {
	l := &rowLangs{min: schemas.DayStart(days[0])}
	type row struct {
		code uint64
		lang uint16
	}
	var rows []row
	index := map[string]uint16{}
	var last schemas.RowKey
	group := 0
	for _, d := range days {
		if group > 0 && l.n >= maxPassTweets {
			break
		}
		group++
		l.max = schemas.DayStart(d) + 86399
		lo, hi := schemas.RowKeyStart(schemas.DayStart(d)), schemas.RowKeyStart(schemas.DayStart(d)+86400)
		err := st.Scan(ctx, schemas.TableAuthors, lo[:], hi[:], func(key, value []byte) error {
			lang, _, ok := schemas.AuthorValue(value)
			if !ok || len(key) != schemas.RawKeyLen {
				return fmt.Errorf("authors row %x: malformed", key)
			}
			k := schemas.RowKey(key[:schemas.RowKeyLen])
			if len(rows) > 0 && k == last {
				if rows[len(rows)-1].lang != collidedLang {
					rows[len(rows)-1].lang = collidedLang
					l.collided = append(l.collided, k)
				}
				l.n++
				return nil
			}
			i, ok := index[string(lang)]
			if !ok {
				if len(l.names) >= noLang {
					return errTooManyLangs
				}
				i = uint16(len(l.names))
				index[string(lang)] = i
				l.names = append(l.names, string(lang))
			}
			rows = append(rows, row{l.code(&k), i})
			last = k
			l.n++
			return nil
		})
		if errors.Is(err, errTooManyLangs) {
			return nil, group, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("reading the authors of the marked days: %w", err)
		}
	}
	size := 1024
	for size < 2*len(rows) {
		size <<= 1
	}
	l.keys, l.lang, l.mask = make([]uint64, size), make([]uint16, size), uint64(size-1)
	for _, r := range rows {
		l.insert(r.code, r.lang)
	}
	return l, group, nil
}

// errTooManyLangs ends a read of more languages than rowLangs codes.
var errTooManyLangs = errors.New("too many languages")

// dayLangCount is a count of one term and field on one day, in one
// language (an index in rowLangs.names).
type dayLangCount struct {
	day  uint16
	lang uint16
	n    int64
}

// countCollided counts the terms of the tweets of the row keys that hold
// more than one (langs.collided), decoded from their raw rows as the raw
// recount decodes them, by term index head (term, NUL, field, NUL), and
// adds their languages to langs.names.
func countCollided(ctx context.Context, st *storeio.Store, langs *rowLangs) (map[string][]dayLangCount, error) {
	counts := map[string][]dayLangCount{}
	if len(langs.collided) == 0 {
		return counts, nil
	}
	index := map[string]uint16{}
	for i, name := range langs.names {
		index[name] = uint16(i)
	}
	var dec schemas.Decoder
	var out schemas.Decoded
	var scratch []transforms.Term
	for _, k := range langs.collided {
		err := st.Scan(ctx, schemas.TableRaw, k[:], k.RawEnd(), func(_, value []byte) error {
			out.Reset()
			dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: value}, &out)
			if len(out.Tweets) != 1 {
				return nil
			}
			t := &out.Tweets[0]
			lang, ok := index[t.Lang]
			if !ok {
				lang = uint16(len(langs.names))
				index[t.Lang] = lang
				langs.names = append(langs.names, t.Lang)
			}
			d := schemas.Day(k.Seconds())
			scratch = transforms.TweetTermFields(scratch, t, func(field, term string) {
				c := schemas.TermRow{Term: term, Field: schemas.TermIndexField(field), Key: k}.Cell()
				head := string(c.Key[:len(c.Key)-schemas.RowKeyLen])
				counts[head] = addCount(counts[head], d, lang, 1)
			})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading the tweets of row key %s: %w", k, err)
		}
	}
	return counts, nil
}

// addCount adds n to the count of day d and language lang in counts.
func addCount(counts []dayLangCount, d, lang uint16, n int64) []dayLangCount {
	for i := len(counts) - 1; i >= 0; i-- {
		if counts[i].day == d && counts[i].lang == lang {
			counts[i].n += n
			return counts
		}
	}
	return append(counts, dayLangCount{d, lang, n})
}

// termDayWorker recounts the terms in [lo, hi) (nil: no bound) of the
// marked days, and writes their counts.
type termDayWorker struct {
	st       *storeio.Store
	langs    *rowLangs
	collided map[string][]dayLangCount
	days     []uint16
	lo, hi   []byte

	// The term and field being counted: its head (term, NUL, field, NUL),
	// the per-day field (-1: a field the counts leave out), its counts.
	head   []byte
	field  int
	counts []dayLangCount
	// The stored counts of each marked day and field, in term order, and
	// the cells to write.
	stored  map[int]*storedCounts
	out     *storeio.Batch
	buf     []byte // the keys and values of the cells to write (storedCounts.pending)
	pending int    // how many
	scratch []byte // a count's cell before it is known to be written
	written int
	ctx     context.Context
}

// termDayFields are the fields of the per-day counts.
var termDayFields = schemas.TermDayFields()

// batchRows is how many term rows are looked up at once: the lookups of
// a batch are independent reads of memory, which the processor overlaps.
const batchRows = 128

func (w *termDayWorker) run(ctx context.Context) error {
	w.ctx = ctx
	w.stored = map[int]*storedCounts{}
	w.out = w.st.NewBatch(1 << 20)
	defer w.out.Close()
	defer func() {
		for _, s := range w.stored {
			s.close()
		}
	}()
	cur, err := w.st.NewCursor(ctx, schemas.TableTerms, w.lo, w.hi)
	if err != nil {
		return err
	}
	open := true
	defer func() {
		if open {
			cur.Close()
		}
	}()
	var (
		codes [batchRows]uint64
		slots [batchRows]uint64
		langs [batchRows]uint16
		heads [batchRows]int32 // where the row's head begins in headBuf, -1: the head of the row before
		n     int
	)
	var headBuf, prevHead []byte
	flush := func() error {
		for i := range n {
			slots[i] = w.langs.slot(codes[i])
		}
		for i := range n {
			langs[i] = w.langs.find(codes[i], slots[i])
		}
		for i := range n {
			if heads[i] >= 0 {
				end := len(headBuf)
				for j := i + 1; j < n; j++ {
					if heads[j] >= 0 {
						end = int(heads[j])
						break
					}
				}
				if err := w.begin(headBuf[heads[i]:end]); err != nil {
					return err
				}
			}
			if l := langs[i]; l < noLang && w.field >= 0 {
				w.counts = addCount(w.counts, uint16((w.langs.min+int64(codes[i]>>32)-1)/86400), l, 1)
			}
		}
		n, headBuf = 0, headBuf[:0]
		return nil
	}
	rows := 0
	for ok := cur.First(); ok; ok = cur.Next() {
		if rows++; rows%(64*1024) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		head, _, _, k, valid := schemas.SplitTermKey(cur.Key())
		if !valid {
			return fmt.Errorf("term index key %q malformed", cur.Key())
		}
		heads[n] = -1
		if !bytes.Equal(head, prevHead) {
			heads[n] = int32(len(headBuf))
			headBuf = append(headBuf, head...)
			prevHead = append(prevHead[:0], head...)
		}
		codes[n] = w.langs.code(&k)
		if n++; n == batchRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	open = false
	if err := cur.Close(); err != nil { // the iterator's error, which ended the loop
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if err := w.begin(nil); err != nil {
		return err
	}
	// What is stored past the last term counted: gone.
	for di := range w.days {
		for fi := range termDayFields {
			s, err := w.storedOf(ctx, di, fi)
			if err != nil {
				return err
			}
			for s.valid {
				w.deleteStored(s)
				if err := s.next(); err != nil {
					return err
				}
			}
			s.close()
			if err := w.maybeCommit(0); err != nil {
				return err
			}
		}
	}
	return w.maybeCommit(-1)
}

// begin ends the term and field being counted, writing its counts, and
// begins that of head (nil: none).
func (w *termDayWorker) begin(head []byte) error {
	if w.head != nil {
		if err := w.emit(); err != nil {
			return err
		}
	}
	w.counts = w.counts[:0]
	if head == nil {
		w.head = nil
		return nil
	}
	w.head = append(w.head[:0], head...)
	i := bytes.IndexByte(head, 0)
	w.field = slices.Index(termDayFields, schemas.TermDayField(string(head[i+1:len(head)-1]), string(head[:i])))
	return nil
}

// emit writes the counts of the term and field w.head: each (day,
// language) merged with the stored counts of its day and field.
func (w *termDayWorker) emit() error {
	if w.field < 0 {
		return nil
	}
	if extra, ok := w.collided[string(w.head)]; ok {
		for _, c := range extra {
			w.counts = addCount(w.counts, c.day, c.lang, c.n)
		}
	}
	if len(w.counts) == 0 {
		return nil
	}
	names := w.langs.names
	slices.SortFunc(w.counts, func(a, b dayLangCount) int {
		if a.day != b.day {
			return int(a.day) - int(b.day)
		}
		return strings.Compare(names[a.lang], names[b.lang])
	})
	i := bytes.IndexByte(w.head, 0)
	term := string(w.head[:i])
	field := termDayFields[w.field]
	for _, c := range w.counts {
		di, ok := slices.BinarySearch(w.days, c.day)
		if !ok {
			continue
		}
		s, err := w.storedOf(w.ctx, di, w.field)
		if err != nil {
			return err
		}
		var cell schemas.Cell
		cell, w.scratch = schemas.TermDayRow{Day: c.day, Field: field, Term: term, Lang: names[c.lang], Tweets: c.n}.AppendCell(w.scratch[:0])
		for s.valid && bytes.Compare(s.key, cell.Key) < 0 {
			w.deleteStored(s)
			if err := s.next(); err != nil {
				return err
			}
		}
		if s.valid && bytes.Equal(s.key, cell.Key) {
			same := bytes.Equal(s.value, cell.Value)
			if err := s.next(); err != nil {
				return err
			}
			if same {
				continue // stored as it is: not written again
			}
		}
		start := len(w.buf)
		w.buf = append(w.buf, w.scratch...)
		k := len(cell.Key)
		cell.Key, cell.Value = w.buf[start:start+k:start+k], w.buf[start+k:len(w.buf):len(w.buf)]
		s.pending = append(s.pending, cell)
		w.pending++
		w.written++
	}
	return w.maybeCommit(0)
}

// deleteStored deletes the stored count s is at.
func (w *termDayWorker) deleteStored(s *storedCounts) {
	start := len(w.buf)
	w.buf = append(w.buf, s.key...)
	s.pending = append(s.pending, schemas.Cell{Table: schemas.TableTermDays, Key: w.buf[start:len(w.buf):len(w.buf)], Delete: true})
	w.pending++
}

// maybeCommit commits the cells gathered once there are more than
// enough of them, or any when min is -1: those of each day and field in
// key order, so that the batch is sorted (Pebble's memtable inserts a
// sorted batch at a fraction of the cost of one in no order).
func (w *termDayWorker) maybeCommit(min int) error {
	if w.pending == 0 || min >= 0 && w.pending < 256*1024 {
		return nil
	}
	for di := range w.days {
		for _, fi := range termDayFieldOrder {
			if s, ok := w.stored[di*len(termDayFields)+fi]; ok && len(s.pending) > 0 {
				w.out.Add(s.pending)
				s.pending = s.pending[:0]
			}
		}
	}
	if err := w.out.Commit(); err != nil {
		return err
	}
	w.pending, w.buf = 0, w.buf[:0]
	return nil
}

// termDayFieldOrder is the indices of termDayFields in the order of their
// names: that of the keys of a day's counts.
var termDayFieldOrder = func() []int {
	order := make([]int, len(termDayFields))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(termDayFields[a], termDayFields[b]) })
	return order
}()

// storedOf returns the stored counts of the marked day days[di] and field
// termDayFields[fi] within the worker's terms, opened on first use.
func (w *termDayWorker) storedOf(ctx context.Context, di, fi int) (*storedCounts, error) {
	id := di*len(termDayFields) + fi
	if s, ok := w.stored[id]; ok {
		return s, nil
	}
	prefix := schemas.TermDayPrefix(w.days[di], termDayFields[fi])
	start := append(slices.Clip(prefix), w.lo...)
	end := sink.PrefixEnd(prefix)
	if w.hi != nil {
		end = append(slices.Clip(prefix), w.hi...)
	}
	cur, err := w.st.NewCursor(ctx, schemas.TableTermDays, start, end)
	if err != nil {
		return nil, err
	}
	s := &storedCounts{cur: cur}
	s.valid = cur.First()
	if err := s.read(); err != nil {
		return nil, err
	}
	w.stored[id] = s
	return s, nil
}

// storedCounts reads the stored counts of one day and field, in key
// order: key and value are those of the count it is at, while valid.
type storedCounts struct {
	cur        *storeio.Cursor
	valid      bool
	key, value []byte
	pending    []schemas.Cell // the day and field's cells to write, in key order
}

func (s *storedCounts) next() error {
	s.valid = s.cur.Next()
	return s.read()
}

func (s *storedCounts) read() error {
	if !s.valid {
		return s.close()
	}
	s.key = s.cur.Key()
	v, err := s.cur.Value()
	s.value = v
	return err
}

// close releases the cursor (at the end of its range, or at the end of
// the pass).
func (s *storedCounts) close() error {
	s.valid = false
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur = nil
	return err
}
