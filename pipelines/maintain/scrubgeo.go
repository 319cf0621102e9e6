package maintain

import (
	"bytes"
	"context"
	"fmt"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
	"github.com/tweetindex/tweetindex/transforms"
)

// scrub_geo. A v1.1 {"scrub_geo":{"user_id_str","up_to_status_id_str"}}
// asks that the location of the user's tweets up to that id be removed;
// a v2 compliance event {"id","action":"scrub_geo"} names a tweet (a
// tweet compliance job) or a user (a user compliance job) without saying
// which. The pipeline records each in the metadata table with a mark
// (schemas.ScrubGeoPrefix), and Run applies the marks when the
// pipeline is done: the geo rows of the tweets they name are deleted.
//
// The geotemporal index is keyed by place and day, not by user, and a geo
// row holds no user id: a user's geo rows are found by one pass over the
// geo table, reading, for each geo row of a tweet created no later than
// the largest up_to of the marks, the raw tweet(s) of its row key for
// their author. Geo rows are few (a few percent of tweets), and the pass
// runs only after a run that received scrub_geo messages, once for all of
// them. A v2 event is applied both ways: as a user's, to all the user's
// tweets, and as a tweet's, through the identity table (Snowflake ids are
// unique across users and tweets, so the wrong reading matches nothing).
//
// A geo cell is keyed by row key, so the two tweets of a row-key
// collision at one place share it: scrubbing one of them writes that
// cell again from the other (the rule of a version removed, docs/queries.md,
// "A row key holding two tweets", by transforms.DeriveTable from the tweets kept),
// unless a scrub_geo, of this run or an earlier one, took the other's
// location too (its notices are read: transforms.GeoScrubbed).

// ApplyScrubGeo applies the scrub_geo marks of the sink s, removes them,
// and returns how many geo rows it deleted.
func ApplyScrubGeo(ctx context.Context, s *sink.Sink) (int, error) {
	users := map[uint64]uint64{} // user -> largest up_to
	var tweetIDs []uint64        // v2 events, read as tweets
	var marks []schemas.Cell
	err := sink.ScanPrefix(ctx, s, schemas.TableMeta, []byte(schemas.ScrubGeoPrefix), func(key, _ []byte) error {
		user, upTo, ok := transforms.ParseScrubGeoMark(string(key))
		if !ok {
			return nil
		}
		users[user] = max(users[user], upTo)
		if upTo == transforms.ScrubGeoAll {
			tweetIDs = append(tweetIDs, user)
		}
		marks = append(marks, schemas.Cell{Table: schemas.TableMeta, Key: bytes.Clone(key), Delete: true})
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("scrub_geo: reading the marks: %w", err)
	}
	if len(marks) == 0 {
		return 0, nil
	}
	var last int64 // the latest second a scrubbed tweet can have
	for _, upTo := range users {
		sec, ok := transforms.SnowflakeSecond(upTo)
		if upTo == transforms.ScrubGeoAll || !ok {
			sec = 1<<62 - 1 // no bound (or none that an id before Snowflake tells)
		}
		last = max(last, sec)
	}

	asTweet := map[uint64]bool{} // v2 events, read as tweets
	for _, id := range tweetIDs {
		asTweet[id] = true
	}
	scrubbed := func(id, user uint64, hasUser bool) bool {
		upTo, named := users[user]
		return asTweet[id] || hasUser && named && id <= upTo
	}

	// The row keys that may hold a tweet to scrub. Users: one pass over
	// the geo table.
	seen := map[schemas.RowKey]bool{}
	var keys []schemas.RowKey
	err = s.ScanAll(ctx, schemas.TableGeo, func(key, value []byte) error {
		r, err := schemas.DecodeGeo(key, value)
		if err != nil || r.Key.Seconds() > last || seen[r.Key] {
			return nil
		}
		seen[r.Key] = true
		keys = append(keys, r.Key)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("scrub_geo: scanning the geo table: %w", err)
	}
	// v2 events read as tweet ids: through the identity table.
	if len(tweetIDs) > 0 {
		rows, err := s.Identities().Identities(ctx, tweetIDs)
		if err != nil {
			return 0, fmt.Errorf("scrub_geo: %w", err)
		}
		for _, r := range rows {
			if !r.Deleted && !seen[r.Key] {
				seen[r.Key] = true
				keys = append(keys, r.Key)
			}
		}
	}

	// Each row key's tweets: those scrubbed lose their geo cells, as a
	// version retracted does (transforms.DeriveTable), and a cell one of them
	// shares with a tweet that stays under the row key (a collision) is
	// written again from that tweet (TweetBatch.Kept), unless a scrub_geo
	// of an earlier run took that tweet's location too.
	var dec schemas.Decoder
	decode := func(k schemas.RowKey, data []byte) (schemas.Tweet, bool) {
		var out schemas.Decoded
		dec.Decode(schemas.Record{Origin: schemas.Origin{Source: "raw"}, Data: data}, &out)
		if len(out.Tweets) != 1 {
			return schemas.Tweet{}, false
		}
		t := out.Tweets[0]
		t.RowKey = k
		return t, true
	}
	deleted := map[string]bool{}
	var cells []schemas.Cell
	for _, k := range keys {
		var gone, stay [][]byte // the JSON of the tweets scrubbed, and of the others
		err := sink.ScanPrefix(ctx, s, schemas.TableRaw, k[:], func(key, value []byte) error {
			row, err := schemas.DecodeRaw(key, value)
			if err != nil {
				return nil
			}
			user, ok := schemas.TweetUserID(row.JSON)
			if scrubbed(row.ID, user, ok) {
				gone = append(gone, bytes.Clone(row.JSON))
			} else {
				stay = append(stay, bytes.Clone(row.JSON))
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("scrub_geo: reading raw tweets: %w", err)
		}
		if len(gone) == 0 {
			continue
		}
		var b transforms.TweetBatch
		for _, data := range gone {
			if t, ok := decode(k, data); ok {
				b.Retracted = append(b.Retracted, t)
			}
		}
		for _, data := range stay {
			t, ok := decode(k, data)
			if !ok || !t.HasPoint {
				continue
			}
			before, err := transforms.GeoScrubbed(ctx, s.Identities(), &t)
			if err != nil {
				return 0, fmt.Errorf("scrub_geo: %w", err)
			}
			if !before {
				b.Kept = append(b.Kept, t)
			}
		}
		geo, err := transforms.DeriveTable(nil, schemas.TableGeo, &b)
		if err != nil {
			return 0, fmt.Errorf("scrub_geo: %w", err)
		}
		for _, c := range geo {
			if c.Delete {
				deleted[string(c.Key)] = true
			}
			cells = append(cells, c)
		}
	}

	if err := s.Write(ctx, append(cells, marks...)); err != nil {
		return 0, fmt.Errorf("scrub_geo: %w", err)
	}
	return len(deleted), nil
}
