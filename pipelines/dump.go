package pipelines

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// DumpRows calls fn with every row of table, in key order, as a value of
// decoded fields that encodes (encoding/json) as the row's object in
// tweetindex dump's JSON lines:
//
//	raw:        row_key (hex), tweet_id, created_at (RFC 3339), json
//	terms:      term, field, row_key, freq
//	frequency:  minute (YYYYMMDDhhmm), lang, count
//	geo:        spread, day, geohash, row_key, lat, lon, point (exact, place or unknown)
//	deadletter: origin, item (when > 0), reason, raw
//	meta:       name, value
//	identity:   tweet_id, row_key (hex) or deleted
//	authors:    row_key (hex), tweet_id, lang, screen_name (lower-cased)
//
// It returns how many rows fn was called with.
func DumpRows(ctx context.Context, src sink.Reader, table schemas.Table, fn func(row any) error) (int64, error) {
	var n int64
	err := src.Scan(ctx, table, nil, nil, func(key, value []byte) error {
		row, err := dumpRow(table, key, value)
		if err != nil {
			return fmt.Errorf("dump %s: row %d: %w", table.Name(), n+1, err)
		}
		n++
		return fn(row)
	})
	return n, err
}

type rawDump struct {
	RowKey    string `json:"row_key"`
	TweetID   string `json:"tweet_id"`
	CreatedAt string `json:"created_at"`
	JSON      string `json:"json"`
}

type authorDump struct {
	RowKey     string `json:"row_key"`
	TweetID    string `json:"tweet_id"`
	Lang       string `json:"lang"`
	ScreenName string `json:"screen_name"`
}

type identityDump struct {
	TweetID string `json:"tweet_id"`
	RowKey  string `json:"row_key,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

type termDump struct {
	Term   string `json:"term"`
	Field  string `json:"field"`
	RowKey string `json:"row_key"`
	Freq   uint32 `json:"freq"`
}

type frequencyDump struct {
	Minute string `json:"minute"`
	Lang   string `json:"lang"`
	Count  int64  `json:"count"`
}

type geoDump struct {
	Spread  uint8   `json:"spread"`
	Day     uint16  `json:"day"`
	Geohash string  `json:"geohash"`
	RowKey  string  `json:"row_key"`
	Lat     float32 `json:"lat"`
	Lon     float32 `json:"lon"`
	Point   string  `json:"point"` // exact, place (a place's centre) or unknown (written before it was recorded)
}

type deadLetterDump struct {
	Origin string `json:"origin"`
	Item   uint32 `json:"item,omitempty"` // the number of the dead letter among those of its line
	Reason string `json:"reason"`
	Raw    string `json:"raw"`
}

type metaDump struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

func dumpRow(table schemas.Table, key, value []byte) (any, error) {
	switch table {
	case schemas.TableRaw:
		r, err := schemas.DecodeRaw(key, value)
		if err != nil {
			return nil, err
		}
		return rawDump{RowKey: r.Key.String(), TweetID: strconv.FormatUint(r.ID, 10), CreatedAt: r.Key.Time().Format("2006-01-02T15:04:05Z07:00"), JSON: string(r.JSON)}, nil
	case schemas.TableAuthors:
		r, err := schemas.DecodeAuthor(key, value)
		if err != nil {
			return nil, err
		}
		return authorDump{RowKey: r.Key.String(), TweetID: strconv.FormatUint(r.ID, 10), Lang: r.Lang, ScreenName: r.ScreenName}, nil
	case schemas.TableIdentity:
		r, err := schemas.DecodeIdentity(key, value)
		if err != nil {
			return nil, err
		}
		d := identityDump{TweetID: strconv.FormatUint(r.ID, 10), Deleted: r.Deleted}
		if !r.Deleted {
			d.RowKey = r.Key.String()
		}
		return d, nil
	case schemas.TableTerms:
		r, err := schemas.DecodeTerm(key, value)
		if err != nil {
			return nil, err
		}
		return termDump{Term: r.Term, Field: r.Field, RowKey: r.Key.String(), Freq: r.Freq}, nil
	case schemas.TableFrequency:
		r, err := schemas.DecodeFrequency(key, value)
		if err != nil {
			return nil, err
		}
		return frequencyDump{Minute: r.Minute, Lang: r.Lang, Count: r.Count}, nil
	case schemas.TableGeo:
		r, err := schemas.DecodeGeo(key, value)
		if err != nil {
			return nil, err
		}
		return geoDump{Spread: r.Geo.Spread(), Day: r.Geo.Day(), Geohash: r.Geo.Geohash(), RowKey: r.Key.String(), Lat: r.Lat, Lon: r.Lon, Point: r.Kind.String()}, nil
	case schemas.TableDeadLetter:
		r, err := schemas.DecodeDeadLetter(key, value)
		if err != nil {
			return nil, err
		}
		return deadLetterDump{Origin: r.Origin.String(), Item: r.Item, Reason: r.Reason, Raw: string(r.Raw)}, nil
	case schemas.TableMeta:
		v := json.RawMessage(value)
		if !json.Valid(value) {
			v, _ = json.Marshal(string(value))
		}
		return metaDump{Name: string(key), Value: v}, nil
	}
	return nil, fmt.Errorf("unknown table %q", byte(table))
}
