package transforms

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/klauspost/compress/s2"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/schemas"
)

// The wire format of TweetBatch, what crosses the shuffle into
// deduplication: plain length-prefixed fields, several times faster and
// smaller than Beam's reflective schema coder, and stable across runners
// because they depend on nothing but this file. (The coders of
// schemas.Record and schemas.Cell are registered by package schemas.)

func init() {
	beam.RegisterCoder(reflect.TypeOf(TweetBatch{}), encodeTweetBatch, decodeTweetBatch)
}

var errShort = errors.New("transforms: truncated element encoding")

type encoder struct{ b []byte }

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) bytes(p []byte)   { e.uvarint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) fixed(p []byte)   { e.b = append(e.b, p...) }

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) fixed(p []byte) {
	if len(d.b) < len(p) {
		d.fail()
		return
	}
	copy(p, d.b)
	d.b = d.b[len(p):]
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.b = nil
}

func (e *encoder) origin(o schemas.Origin) { e.str(o.Source); e.varint(o.Line) }
func (d *decoder) origin() schemas.Origin {
	return schemas.Origin{Source: d.str(), Line: d.varint()}
}

func (e *encoder) tweet(t *schemas.Tweet) {
	e.uvarint(t.ID)
	e.varint(t.CreatedAt)
	e.str(t.Lang)
	e.str(t.Text)
	e.str(t.UserName)
	e.str(t.ScreenName)
	if t.HasPoint {
		flag := byte(1) // 1: exact coordinates, 2: a place's centre
		if t.PlaceCentre {
			flag = 2
		}
		e.b = append(e.b, flag)
		e.b = binary.BigEndian.AppendUint64(e.b, math.Float64bits(t.Lat))
		e.b = binary.BigEndian.AppendUint64(e.b, math.Float64bits(t.Lon))
	} else {
		e.b = append(e.b, 0)
	}
	e.bytes(t.JSON)
	e.origin(t.Origin)
	e.fixed(t.RowKey[:])
}

func (d *decoder) tweet(t *schemas.Tweet) {
	t.ID = d.uvarint()
	t.CreatedAt = d.varint()
	t.Lang = d.str()
	t.Text = d.str()
	t.UserName = d.str()
	t.ScreenName = d.str()
	var flag [1]byte
	d.fixed(flag[:])
	if flag[0] == 1 || flag[0] == 2 {
		var f [16]byte
		d.fixed(f[:])
		t.HasPoint, t.PlaceCentre = true, flag[0] == 2
		t.Lat = math.Float64frombits(binary.BigEndian.Uint64(f[:8]))
		t.Lon = math.Float64frombits(binary.BigEndian.Uint64(f[8:]))
	}
	t.JSON = d.bytes()
	t.Origin = d.origin()
	d.fixed(t.RowKey[:])
}

// Tweet batch encodings, told apart by their first byte. Batches are the
// bulk of what crosses the shuffle before deduplication; tweet JSON
// compresses about 3:1 with S2 at several hundred MB/s, which costs less
// than moving the bytes through a runner (on prism, several copies).
const (
	batchPlain = 0
	batchS2    = 1
)

func encodeTweetBatch(b TweetBatch) []byte {
	size := 8 + 8*len(b.Deletes)
	for _, ts := range [][]schemas.Tweet{b.Tweets, b.Replacements, b.Retracted, b.Kept} {
		for i := range ts {
			size += len(ts[i].JSON) + len(ts[i].Text) + 128
		}
	}
	e := encoder{b: make([]byte, 0, size)}
	e.tweets(b.Tweets)
	// The rest is absent from most batches: a batch that ends after its
	// tweets has none.
	if len(b.Replacements)+len(b.Deletes)+len(b.Retracted)+len(b.Recount)+len(b.Acks)+len(b.Kept)+len(b.Collided) > 0 {
		e.tweets(b.Replacements)
		e.uvarint(uint64(len(b.Deletes)))
		for _, id := range b.Deletes {
			e.uvarint(id)
		}
		e.tweets(b.Retracted)
		e.uvarint(uint64(len(b.Recount)))
		for _, sec := range b.Recount {
			e.varint(sec)
		}
		if len(b.Acks)+len(b.Kept)+len(b.Collided) > 0 {
			e.uvarint(uint64(len(b.Acks)))
			for _, a := range b.Acks {
				e.str(a.Source)
				e.varint(a.Offset)
				e.varint(int64(a.Done))
			}
			e.tweets(b.Kept)
			if len(b.Collided) > 0 {
				e.uvarint(uint64(len(b.Collided)))
				for _, k := range b.Collided {
					e.fixed(k[:])
				}
			}
		}
	}
	out := make([]byte, 1, 1+s2.MaxEncodedLen(len(e.b)))
	out[0] = batchS2
	n := len(s2.Encode(out[1:cap(out)], e.b))
	return out[:1+n]
}

func (e *encoder) tweets(ts []schemas.Tweet) {
	e.uvarint(uint64(len(ts)))
	for i := range ts {
		e.tweet(&ts[i])
	}
}

func (d *decoder) tweets() []schemas.Tweet {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	if n == 0 {
		return nil
	}
	ts := make([]schemas.Tweet, n)
	for i := range ts {
		d.tweet(&ts[i])
	}
	return ts
}

func decodeTweetBatch(p []byte) (TweetBatch, error) {
	if len(p) == 0 {
		return TweetBatch{}, errShort
	}
	switch p[0] {
	case batchPlain:
		p = p[1:]
	case batchS2:
		raw, err := s2.Decode(nil, p[1:])
		if err != nil {
			return TweetBatch{}, fmt.Errorf("transforms: tweet batch: %w", err)
		}
		p = raw
	default:
		return TweetBatch{}, fmt.Errorf("transforms: tweet batch encoding %d unknown", p[0])
	}
	d := decoder{b: p}
	var b TweetBatch
	b.Tweets = d.tweets()
	if d.err == nil && len(d.b) > 0 {
		b.Replacements = d.tweets()
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			d.fail()
		} else if n > 0 {
			b.Deletes = make([]uint64, n)
			for i := range b.Deletes {
				b.Deletes[i] = d.uvarint()
			}
		}
		b.Retracted = d.tweets()
		if n := d.uvarint(); n > uint64(len(d.b)) {
			d.fail()
		} else if n > 0 {
			b.Recount = make([]int64, n)
			for i := range b.Recount {
				b.Recount[i] = d.varint()
			}
		}
		if d.err == nil && len(d.b) > 0 {
			if n := d.uvarint(); n > uint64(len(d.b)) {
				d.fail()
			} else if n > 0 {
				b.Acks = make([]schemas.Ack, n)
				for i := range b.Acks {
					b.Acks[i] = schemas.Ack{Source: d.str(), Offset: d.varint(), Done: int32(d.varint())}
				}
			}
			b.Kept = d.tweets()
			if d.err == nil && len(d.b) > 0 {
				if n := d.uvarint(); n > uint64(len(d.b))/schemas.RowKeyLen {
					d.fail()
				} else if n > 0 {
					b.Collided = make([]schemas.RowKey, n)
					for i := range b.Collided {
						d.fixed(b.Collided[i][:])
					}
				}
			}
		}
	}
	return b, d.err
}
