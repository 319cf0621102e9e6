package query

import (
	"context"
	"fmt"
	"sync"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// Row-key collisions and counts. Two tweets of one second whose JSON has
// the same 32-bit hash share a row key; both raw cells are kept (the tweet
// id is the raw cell's qualifier), but the term and geo indexes point at
// row keys, so a term or a geohash cell both tweets make is one index row
// for two tweets. Retrievals read every tweet of a row key and keep those
// that answer the question (emitter.rowTweets); counts, which read the
// indexes alone, would count such a row key once.
//
// Collisions are rare (about n^2/2^33 a second for n tweets a second), and
// the run that stores the second tweet of a row key finds them: Dedup
// among its own tweets, Identify against a sink's earlier tweets. RawFn
// records each in the metadata table (schemas.CollisionName). The engine
// reads the records once (collided), and a count reads the tweets of those
// row keys alone, keeping those a retrieval keeps (answering): every count
// then equals its retrieval's length. When one tweet of a pair goes
// (deleted, forgotten, replaced) the identity stage removes the record
// after its raw cell (transforms.Identifier); a record may still name a
// row key that holds one tweet (a crash between the two writes, a pair
// whose tweet went in the run that stored it, stores indexed before):
// it costs one read, never a wrong count.

// collisionSet is the row keys recorded as collisions.
type collisionSet map[schemas.RowKey]bool

// collided returns the row keys recorded as holding more than one tweet,
// read from the metadata table on the first call.
func (e *Engine) collided(ctx context.Context) (collisionSet, error) {
	e.collideMu.Lock()
	defer e.collideMu.Unlock()
	if e.collisions != nil {
		return e.collisions, nil
	}
	set := collisionSet{}
	err := sink.ScanPrefix(ctx, e.R, schemas.TableMeta, []byte(schemas.CollisionPrefix), func(key, _ []byte) error {
		if k, ok := schemas.ParseCollisionName(string(key)); ok {
			set[k] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("query: reading the collision records: %w", err)
	}
	e.collisions = set
	return set, nil
}

// collideState is the Engine's cache of collided.
type collideState struct {
	collideMu  sync.Mutex
	collisions collisionSet
}

// answering calls fn with each tweet of one row key (values, in id order)
// that answers a question: all of them, unless the row key holds more
// than one (a collision), or check is set (a phrase, which only the text
// tells), and match, if not nil, says otherwise. The one rule retrievals
// (emitter.rowTweets) and counts (countAnswering) apply.
func answering(dec *decoder, k []byte, values [][]byte, match func(*schemas.Tweet) bool, check bool, fn func(v []byte) error) error {
	for _, v := range values {
		if (len(values) > 1 || check) && match != nil {
			t, err := dec.decode(k, v)
			if err != nil {
				return err
			}
			if !match(t) {
				continue // the row key's other tweet
			}
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

// countAnswering returns how many tweets of row keys ks a retrieval with
// match, check and lang returns: answering, then the language, as
// emitter.row checks it.
func (e *Engine) countAnswering(ctx context.Context, ks []schemas.RowKey, match func(*schemas.Tweet) bool, need map[schemas.RowKey]bool, lang string) (int64, error) {
	var n int64
	var dec decoder
	err := e.rows(ctx, ks, fetchChunk, func(k []byte, values [][]byte) error {
		return answering(&dec, k, values, match, need[schemas.RowKey(k)], func(v []byte) error {
			if lang != "" {
				t, err := dec.decode(k, v)
				if err != nil {
					return err
				}
				if t.Lang != lang {
					return nil
				}
			}
			n++
			return nil
		})
	})
	return n, err
}
