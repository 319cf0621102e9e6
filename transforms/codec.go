package transforms

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/klauspost/compress/s2"

	"github.com/tweetindex/tweetindex/schemas"
)

// The wire format of TweetBatch, what crosses the shuffle into
// deduplication: plain length-prefixed fields (schemas.ElementEncoder), several times faster and
// smaller than Beam's reflective schema coder, and stable across runners
// because they depend on nothing but this file. (The coders of
// schemas.Record and schemas.Cell are registered by package schemas.)

func init() {
	beam.RegisterCoder(reflect.TypeOf(TweetBatch{}), encodeTweetBatch, decodeTweetBatch)
}

// encoder and decoder add the fields of tweets to schemas' element
// encoding.
type encoder struct{ schemas.ElementEncoder }

type decoder struct{ schemas.ElementDecoder }

func (e *encoder) origin(o schemas.Origin) { e.Str(o.Source); e.Varint(o.Line) }
func (d *decoder) origin() schemas.Origin {
	return schemas.Origin{Source: d.Str(), Line: d.Varint()}
}

func (e *encoder) tweet(t *schemas.Tweet) {
	e.Uvarint(t.ID)
	e.Varint(t.CreatedAt)
	e.Str(t.Lang)
	e.Str(t.Text)
	e.Str(t.UserName)
	e.Str(t.ScreenName)
	if t.HasPoint {
		flag := byte(1) // 1: exact coordinates, 2: a place's centre
		if t.PlaceCentre {
			flag = 2
		}
		e.Byte(flag)
		e.B = binary.BigEndian.AppendUint64(e.B, math.Float64bits(t.Lat))
		e.B = binary.BigEndian.AppendUint64(e.B, math.Float64bits(t.Lon))
	} else {
		e.Byte(0)
	}
	e.Bytes(t.JSON)
	e.origin(t.Origin)
	e.Fixed(t.RowKey[:])
	e.Str(t.QuotedAuthor)
	e.Str(t.ReplyTo)
	if t.Entities == nil {
		e.Byte(0)
		return
	}
	e.Byte(1)
	for _, list := range [...][]string{t.Entities.Hashtags, t.Entities.Mentions, t.Entities.Cashtags, t.Entities.URLs} {
		e.Uvarint(uint64(len(list)))
		for _, x := range list {
			e.Str(x)
		}
	}
}

func (d *decoder) tweet(t *schemas.Tweet) {
	t.ID = d.Uvarint()
	t.CreatedAt = d.Varint()
	t.Lang = d.Str()
	t.Text = d.Str()
	t.UserName = d.Str()
	t.ScreenName = d.Str()
	if flag := d.Byte(); flag == 1 || flag == 2 {
		var f [16]byte
		d.Fixed(f[:])
		t.HasPoint, t.PlaceCentre = true, flag == 2
		t.Lat = math.Float64frombits(binary.BigEndian.Uint64(f[:8]))
		t.Lon = math.Float64frombits(binary.BigEndian.Uint64(f[8:]))
	}
	t.JSON = d.Bytes()
	t.Origin = d.origin()
	d.Fixed(t.RowKey[:])
	t.QuotedAuthor = d.Str()
	t.ReplyTo = d.Str()
	if d.Byte() != 1 {
		return
	}
	e := &schemas.Entities{}
	for _, list := range [...]*[]string{&e.Hashtags, &e.Mentions, &e.Cashtags, &e.URLs} {
		if n := d.Count(); n > 0 {
			*list = make([]string, n)
			for i := range *list {
				(*list)[i] = d.Str()
			}
		}
	}
	t.Entities = e
}

// Tweet batch encodings, told apart by their first byte. Batches are the
// bulk of what crosses the shuffle before deduplication; tweet JSON
// compresses about 3:1 with S2 at several hundred MB/s, which costs less
// than moving the bytes through a runner (on prism, several copies).
const (
	batchPlain = 0
	batchS2    = 1
	batchHeld  = 2 // a batch held in this process's memory: its handle only (ShareBatchesInProcess)
)

// Batches held in this process's memory for a runner in this process: the
// element that crosses the runner is the batch's handle, and the decoder
// takes the batch back from heldBatches. For a run whose runner and
// workers are all in this process (prism in process, LOOPBACK workers),
// where crossing the shuffle means encoding, compressing and copying a
// batch several times over to hand it back to the same process: on 100K
// bench tweets, S2 alone was 0.5 s of 5.9 s of CPU.
//
// Only the batches ParseFn emits have a handle (shareBatch), and encoding
// one again holds it under the same handle: Beam's SDK also encodes some
// elements of every PCollection to sample their size (exec.PCollection,
// the first 3 of each bundle and more at random), encodings that nobody
// decodes. Had each encoding held the batch under a new handle, those
// samples (here: Parse's output before the shuffle, and the batches of
// deduplication and identity, which never cross it) would stay held for
// the life of the process: 62-80 batches a run on the benches.
var (
	sharing     atomic.Int32 // runs under way that share batches (ShareBatchesInProcess)
	heldBatches sync.Map     // handle (uint64) -> TweetBatch
	lastHandle  atomic.Uint64
)

// ShareBatchesInProcess makes ParseFn's batches, in this process, cross
// the shuffle by reference, until stop is called (by every caller, when
// runs overlap): TweetBatch's coder holds them in memory and encodes only
// a handle, which only this process can decode, once. It is for runs
// whose workers are all in this process (the coder encodes where a batch
// is emitted and decodes where it is consumed): job.Run calls it for
// bounded runs on prism in process. A worker in another process never
// shares (it is off by default) and encodes batches in full; the decoder
// reads both. The batches of a run that fails before they are consumed
// stay held until the process exits.
func ShareBatchesInProcess() (stop func()) {
	sharing.Add(1)
	var once sync.Once
	return func() { once.Do(func() { sharing.Add(-1) }) }
}

// shareBatch gives b a handle if a run in this process shares batches.
func shareBatch(b *TweetBatch) {
	if sharing.Load() > 0 {
		b.handle = lastHandle.Add(1)
	}
}

// SharedBatches reports how many batches this process has sent by handle
// so far and how many of them are held still (sent, not yet decoded): none
// once every run that shared has ended, unless a run failed.
func SharedBatches() (sent uint64, held int) {
	heldBatches.Range(func(any, any) bool { held++; return true })
	return lastHandle.Load(), held
}

// errBatchNotHeld is the failure of decoding a handle whose batch this
// process does not hold: decoded twice, or in another process.
var errBatchNotHeld = errors.New("transforms: tweet batch not held in this process (it was sent by handle, ShareBatchesInProcess, and was decoded already or sent to another process)")

func encodeTweetBatch(b TweetBatch) []byte {
	if b.handle != 0 {
		heldBatches.Store(b.handle, b)
		return binary.AppendUvarint([]byte{batchHeld}, b.handle)
	}
	size := 8 + 8*len(b.Deletes)
	for _, ts := range [][]schemas.Tweet{b.Tweets, b.Replacements, b.Retracted, b.Kept} {
		for i := range ts {
			size += len(ts[i].JSON) + len(ts[i].Text) + 128
		}
	}
	scratch := encodeScratch.Get().(*batchScratch)
	defer encodeScratch.Put(scratch)
	e := encoder{schemas.ElementEncoder{B: slices.Grow(scratch.raw[:0], size)}}
	e.tweets(b.Tweets)
	// The rest is absent from most batches: a batch that ends after its
	// tweets has none.
	if len(b.Replacements)+len(b.Deletes)+len(b.Retracted)+len(b.Recount)+len(b.Acks)+len(b.Kept)+len(b.Collided)+len(b.Probes) > 0 {
		e.tweets(b.Replacements)
		e.Uvarint(uint64(len(b.Deletes)))
		for _, id := range b.Deletes {
			e.Uvarint(id)
		}
		e.tweets(b.Retracted)
		e.Uvarint(uint64(len(b.Recount)))
		for _, sec := range b.Recount {
			e.Varint(sec)
		}
		if len(b.Acks)+len(b.Kept)+len(b.Collided)+len(b.Probes) > 0 {
			e.Uvarint(uint64(len(b.Acks)))
			for _, a := range b.Acks {
				e.Str(a.Source)
				e.Varint(a.Offset)
				e.Varint(int64(a.Done))
			}
			e.tweets(b.Kept)
			if len(b.Collided)+len(b.Probes) > 0 {
				e.Uvarint(uint64(len(b.Collided)))
				for _, k := range b.Collided {
					e.Fixed(k[:])
				}
			}
			if len(b.Probes) > 0 {
				e.Uvarint(uint64(len(b.Probes)))
				for _, p := range b.Probes {
					e.Uvarint(p.ID)
					e.Fixed(p.Key[:])
				}
			}
		}
	}
	scratch.raw = e.B
	scratch.s2 = slices.Grow(scratch.s2[:0], s2.MaxEncodedLen(len(e.B)))
	z := s2.Encode(scratch.s2[:cap(scratch.s2)], e.B)
	out := make([]byte, 1+len(z))
	out[0] = batchS2
	copy(out[1:], z)
	return out
}

// batchScratch holds the buffers encodeTweetBatch fills before the batch
// it returns: a batch's tweets encoded, then compressed. Taken from a
// pool, they are not allocated (and zeroed: a batch is megabytes) for
// every batch; the result is a copy of exactly the compressed bytes.
type batchScratch struct{ raw, s2 []byte }

var encodeScratch = sync.Pool{New: func() any { return new(batchScratch) }}

func (e *encoder) tweets(ts []schemas.Tweet) {
	e.Uvarint(uint64(len(ts)))
	for i := range ts {
		e.tweet(&ts[i])
	}
}

func (d *decoder) tweets() []schemas.Tweet {
	n := d.Count()
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
		return TweetBatch{}, schemas.ErrTruncatedElement
	}
	switch p[0] {
	case batchPlain:
		p = p[1:]
	case batchHeld:
		h, n := binary.Uvarint(p[1:])
		if n <= 0 || n != len(p)-1 {
			return TweetBatch{}, schemas.ErrTruncatedElement
		}
		v, ok := heldBatches.LoadAndDelete(h)
		if !ok {
			return TweetBatch{}, fmt.Errorf("%w: handle %d", errBatchNotHeld, h)
		}
		b := v.(TweetBatch)
		b.handle = 0 // what the consumer makes of it is its own
		return b, nil
	case batchS2:
		raw, err := s2.Decode(nil, p[1:])
		if err != nil {
			return TweetBatch{}, fmt.Errorf("transforms: tweet batch: %w", err)
		}
		p = raw
	default:
		return TweetBatch{}, fmt.Errorf("transforms: tweet batch encoding %d unknown", p[0])
	}
	d := decoder{schemas.NewElementDecoder(p)}
	var b TweetBatch
	b.Tweets = d.tweets()
	if d.Err() == nil && d.Len() > 0 {
		b.Replacements = d.tweets()
		if n := d.Count(); n > 0 {
			b.Deletes = make([]uint64, n)
			for i := range b.Deletes {
				b.Deletes[i] = d.Uvarint()
			}
		}
		b.Retracted = d.tweets()
		if n := d.Count(); n > 0 {
			b.Recount = make([]int64, n)
			for i := range b.Recount {
				b.Recount[i] = d.Varint()
			}
		}
		if d.Err() == nil && d.Len() > 0 {
			if n := d.Count(); n > 0 {
				b.Acks = make([]schemas.Ack, n)
				for i := range b.Acks {
					b.Acks[i] = schemas.Ack{Source: d.Str(), Offset: d.Varint(), Done: int32(d.Varint())}
				}
			}
			b.Kept = d.tweets()
			if d.Err() == nil && d.Len() > 0 {
				// Count fails a count beyond the bytes left; Fixed a
				// row key cut short.
				if n := d.Count(); n > 0 {
					b.Collided = make([]schemas.RowKey, n)
					for i := range b.Collided {
						d.Fixed(b.Collided[i][:])
					}
				}
				if d.Err() == nil && d.Len() > 0 {
					if n := d.Count(); n > 0 {
						b.Probes = make([]schemas.IdentityRow, n)
						for i := range b.Probes {
							b.Probes[i].ID = d.Uvarint()
							d.Fixed(b.Probes[i].Key[:])
						}
					}
				}
			}
		}
	}
	return b, d.Err()
}
