package query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// Hit is a tweet a question retrieved: its row key and its stored JSON,
// which Tweet decodes into fields. Geo answers also carry the indexed
// point and its kind (exact coordinates or a place's centre). A Hit is valid during the call of emit that hands it over only:
// its JSON and decoded tweet are the reader's buffers (copy what is kept).
type Hit struct {
	Key      schemas.RowKey
	Lat, Lon float32
	HasPoint bool
	Kind     schemas.PointKind
	// JSON is the tweet's stored JSON.
	JSON []byte

	dec   *decoder
	tweet *schemas.Tweet // decoded already (to check a language)
}

// Tweet decodes the tweet's fields. Retrievals hand the stored JSON over
// undecoded, so that a caller that needs row keys or the JSON (counts,
// exports) does not pay for decoding it.
func (h Hit) Tweet() (*schemas.Tweet, error) {
	if h.tweet != nil {
		return h.tweet, nil
	}
	if h.dec == nil {
		h.dec = &decoder{}
	}
	return h.dec.decode(h.Key[:], h.JSON)
}

// Page bounds a retrieval: Limit tweets (0: all), those after the row key
// After (nil: from the start). A retrieval's tweets come in row key order,
// so the last row key of a page is the cursor of the next; a row key is
// never split between pages, so a page that ends on one holding two
// tweets (a collision) has one more than Limit.
type Page struct {
	Limit int
	After *schemas.RowKey
}

// emitter applies a page and a language to retrieved row keys, reads the
// tweets and hands them on.
type emitter struct {
	e     *Engine
	page  Page
	lang  string
	n     int
	dec   decoder
	emit  func(Hit) error
	point map[schemas.RowKey][]GeoHit
	// match says whether a tweet answers the question: an index points
	// at a row key, and a row key can hold two tweets (a collision), of
	// which the index may mean one. Asked only of such row keys.
	match func(*schemas.Tweet) bool
	// need asks match of the tweets of these row keys too, not only of
	// collisions: the question has a phrase whose positions their term
	// rows do not record (phraseFilter).
	need map[schemas.RowKey]bool
	// full is the row key at which the page filled up: the other tweets
	// of that row key still go in the page, since the next page starts
	// after the row key.
	full *schemas.RowKey
}

func (p Page) emitter(e *Engine, lang string, emit func(Hit) error) *emitter {
	return &emitter{e: e, page: p, lang: lang, emit: emit}
}

// fetchChunk is how many tweets keys reads at once, fetchParallel at a
// time: a Cassandra read is a round trip, and a term in every twentieth
// tweet points at thousands.
const (
	fetchChunk    = 128
	fetchParallel = 16
)

// keys reads the tweets of row keys ks (in order) and emits those that
// pass the page and the language, in order; it returns errStop once the
// page is full.
func (o *emitter) keys(ctx context.Context, ks []schemas.RowKey) error {
	if o.page.After != nil {
		i, found := slices.BinarySearchFunc(ks, *o.page.After, compareKeys)
		if found {
			i++
		}
		ks = ks[i:]
	}
	chunk := fetchChunk
	if o.page.Limit > 0 && o.lang == "" && len(o.need) == 0 {
		chunk = max(o.page.Limit-o.n, 1) // no more than the page needs
	}
	return o.e.rows(ctx, ks, chunk, o.rowTweets)
}

// rowTweets emits the tweets of row key k (values, in id order) that
// answer the question: all of them, unless the row key holds more than
// one (a collision) or its tweets must be checked (need), and match says
// otherwise.
func (o *emitter) rowTweets(k []byte, values [][]byte) error {
	return answering(&o.dec, k, values, o.match, o.need[schemas.RowKey(k)], func(v []byte) error { return o.row(k, v) })
}

// rows calls fn with every tweet (stored JSON, valid during the call) of
// each sorted row key of ks, in order. The store reads them through one
// cursor whose seeks move forward only; Cassandra, where a read is a round
// trip, a chunk of at most chunk row keys at a time, each chunk read
// fetchParallel row keys at a time. A row key the raw table does not hold
// is an error, unless the tables are live (Engine.Live): then it is left
// out.
func (e *Engine) rows(ctx context.Context, ks []schemas.RowKey, chunk int, fn func(k []byte, values [][]byte) error) error {
	if st, ok := e.R.(*storeio.Store); ok {
		return storeRows(ctx, st, ks, e.Live, fn)
	}
	values := make([][][]byte, fetchChunk)
	for len(ks) > 0 {
		c := ks[:min(chunk, len(ks), fetchChunk)]
		ks = ks[len(c):]
		if err := e.fetch(ctx, c, values); err != nil {
			return err
		}
		for i, k := range c {
			if err := fn(k[:], values[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// storeRows is rows on the embedded store.
func storeRows(ctx context.Context, st *storeio.Store, ks []schemas.RowKey, live bool, fn func(k []byte, values [][]byte) error) error {
	if len(ks) == 0 {
		return nil
	}
	cur, err := st.NewCursor(ctx, schemas.TableRaw, ks[0][:], afterRowKey(ks[len(ks)-1][:]))
	if err != nil {
		return err
	}
	// The values are copied (the cursor reuses v as it moves on to see
	// whether the row key holds another tweet) into buffers that every
	// row key reuses: fn's values are valid during the call only.
	var values, bufs [][]byte
	err = func() error {
		for i := range ks {
			if i%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			k := ks[i][:]
			values = values[:0]
			for ok := cur.SeekGE(k); ok && bytes.HasPrefix(cur.Key(), k); ok = cur.Next() {
				v, err := cur.Value()
				if err != nil {
					return err
				}
				if len(values) == len(bufs) {
					bufs = append(bufs, nil)
				}
				bufs[len(values)] = append(bufs[len(values)][:0], v...)
				values = append(values, bufs[len(values)])
			}
			if len(values) == 0 {
				if live {
					continue // not written yet (Engine.Live)
				}
				return missingRow(k)
			}
			if err := fn(k, values); err != nil {
				return err
			}
		}
		return nil
	}()
	// A read that failed (an I/O error) ends the cursor as if the row
	// were not there: its error, not the row it missed, is the answer's.
	if cerr := cur.Close(); cerr != nil && (err == nil || errors.As(err, new(missingRowError))) {
		err = cerr
	}
	return err
}

// fetch reads the stored tweets of row keys ks into values,
// fetchParallel row keys at a time.
func (e *Engine) fetch(ctx context.Context, ks []schemas.RowKey, values [][][]byte) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(ks))
	sem := make(chan struct{}, fetchParallel)
	var wg sync.WaitGroup
	for i := range ks {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			value, err := rowTweets(ctx, e.R, ks[i])
			if err == nil && len(value) == 0 {
				err = missingRow(ks[i][:])
			}
			values[i], errs[i] = value, err
			if err != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rowTweets returns the stored JSON of every tweet of row key k (two or
// more in a collision), in id order.
func rowTweets(ctx context.Context, r sink.Reader, k schemas.RowKey) ([][]byte, error) {
	var out [][]byte
	err := r.Scan(ctx, schemas.TableRaw, k[:], afterRowKey(k[:]), func(_, v []byte) error {
		out = append(out, bytes.Clone(v)) // the scan owns v
		return nil
	})
	return out, err
}

// missingRow is the error of an index row that points at no raw row.
func missingRow(k []byte) error { return missingRowError{bytes.Clone(k)} }

// missingRowError is missingRow's error.
type missingRowError struct{ key []byte }

func (e missingRowError) Error() string {
	return fmt.Sprintf("index points at row %x, which the raw table does not hold", e.key)
}

// row emits the raw row key, value if it passes the page and language:
// the one step every retrieved tweet goes through.
func (o *emitter) row(key, value []byte) error {
	if o.page.After != nil && bytes.Compare(key[:min(len(key), schemas.RowKeyLen)], o.page.After[:]) <= 0 {
		return nil
	}
	if o.full != nil && !bytes.HasPrefix(key, o.full[:]) {
		return errStop
	}
	h := Hit{JSON: value, dec: &o.dec}
	copy(h.Key[:], key)
	if o.lang != "" {
		t, err := o.dec.decode(key, value)
		if err != nil {
			return err
		}
		if t.Lang != o.lang {
			return nil
		}
		h.tweet = t
	}
	if ps := o.point[h.Key]; len(ps) > 0 {
		p := ps[0]
		if len(ps) > 1 { // a collision: of the row key's points, this tweet's
			t, err := h.Tweet()
			if err != nil {
				return err
			}
			for _, q := range ps[1:] {
				if t.HasPoint && float32(t.Lat) == q.Lat && float32(t.Lon) == q.Lon {
					p = q
				}
			}
		}
		h.Lat, h.Lon, h.HasPoint, h.Kind = p.Lat, p.Lon, true, p.Kind
	}
	if err := o.emit(h); err != nil {
		return err
	}
	if o.n++; o.page.Limit > 0 && o.n >= o.page.Limit && o.full == nil {
		k := h.Key
		o.full = &k
	}
	return nil
}

// end turns the errStop of a full page into success.
func (o *emitter) end(err error) error {
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// langFilter returns a check of a row key's language: always true without
// one; with one, it reads the tweet (the indexes other than frequency do
// not hold the language).
//
// A row key of coll (a collision) passes: its tweets may differ in
// language, and the caller checks each (countAnswering).
func (e *Engine) langFilter(lang string, coll collisionSet) func(context.Context, schemas.RowKey) (bool, error) {
	if lang == "" {
		return func(context.Context, schemas.RowKey) (bool, error) { return true, nil }
	}
	var d decoder
	return func(ctx context.Context, k schemas.RowKey) (bool, error) {
		if coll[k] {
			return true, nil // its tweets may differ in language: each is checked (countAnswering)
		}
		value, ok, err := e.R.Lookup(ctx, schemas.TableRaw, k[:])
		if err != nil || !ok {
			return false, err
		}
		t, err := d.decode(k[:], value)
		if err != nil {
			return false, err
		}
		return t.Lang == lang, nil
	}
}

// Tweets answers "which tweets were created in this range" (question 6),
// and streams an export of them (question 9): the raw table's rows of the
// range, in row key order.
func (e *Engine) Tweets(ctx context.Context, f Filter, page Page, emit func(Hit) error) error {
	s, err := e.resolve(ctx, f)
	if err != nil || s.from >= s.to {
		return err
	}
	out := page.emitter(e, s.lang, emit)
	start := rowKeyAt(s.from)
	if page.After != nil && bytes.Compare(page.After[:], start) >= 0 {
		start = afterRowKey(page.After[:]) // just after the cursor's tweets
	}
	// On Cassandra the reader walks the range a minute (16 partitions) at a time.
	return out.end(e.R.Scan(ctx, schemas.TableRaw, start, rowKeyAt(s.to), out.row))
}

// Export writes the stored JSON of the tweets of the range as lines to w,
// in row key order, streamed (question 9), and returns how many.
func (e *Engine) Export(ctx context.Context, f Filter, w io.Writer) (int64, error) {
	var n int64
	err := e.Tweets(ctx, f, Page{}, func(h Hit) error {
		n++
		return writeLine(w, h.JSON)
	})
	return n, err
}

// writeLine writes the JSON b as one line: compacted if it spans lines
// (a tweet out of a pretty-printed array is stored as read).
func writeLine(w io.Writer, b []byte) error {
	if bytes.ContainsAny(b, "\r\n") {
		var c bytes.Buffer
		if err := json.Compact(&c, b); err == nil {
			b = c.Bytes()
		}
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}
