package schemas

import (
	"encoding/json"
	"strconv"
)

// The rows of tweetindex dump: each table's TableSpec.Dump decodes a cell
// into one of these, which encodes (encoding/json) as the row's object in
// the dump's JSON lines. Field order is output order.

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
	// Positions are the text row's positions (none recorded: absent).
	Positions *[]uint32 `json:"positions,omitempty"`
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

func dumpRaw(key, value []byte) (any, error) {
	r, err := DecodeRaw(key, value)
	if err != nil {
		return nil, err
	}
	return rawDump{RowKey: r.Key.String(), TweetID: strconv.FormatUint(r.ID, 10), CreatedAt: r.Key.Time().Format("2006-01-02T15:04:05Z07:00"), JSON: string(r.JSON)}, nil
}

func dumpAuthor(key, value []byte) (any, error) {
	r, err := DecodeAuthor(key, value)
	if err != nil {
		return nil, err
	}
	return authorDump{RowKey: r.Key.String(), TweetID: strconv.FormatUint(r.ID, 10), Lang: r.Lang, ScreenName: r.ScreenName}, nil
}

func dumpIdentity(key, value []byte) (any, error) {
	r, err := DecodeIdentity(key, value)
	if err != nil {
		return nil, err
	}
	d := identityDump{TweetID: strconv.FormatUint(r.ID, 10), Deleted: r.Deleted}
	if !r.Deleted {
		d.RowKey = r.Key.String()
	}
	return d, nil
}

func dumpTerm(key, value []byte) (any, error) {
	r, err := DecodeTerm(key, value)
	if err != nil {
		return nil, err
	}
	d := termDump{Term: r.Term, Field: r.Field, RowKey: r.Key.String(), Freq: r.Freq}
	if r.Positioned {
		ps := append([]uint32{}, r.Positions...)
		d.Positions = &ps
	}
	return d, nil
}

func dumpFrequency(key, value []byte) (any, error) {
	r, err := DecodeFrequency(key, value)
	if err != nil {
		return nil, err
	}
	return frequencyDump(r), nil
}

func dumpGeo(key, value []byte) (any, error) {
	r, err := DecodeGeo(key, value)
	if err != nil {
		return nil, err
	}
	return geoDump{Spread: r.Geo.Spread(), Day: r.Geo.Day(), Geohash: r.Geo.Geohash(), RowKey: r.Key.String(), Lat: r.Lat, Lon: r.Lon, Point: r.Kind.String()}, nil
}

func dumpDeadLetter(key, value []byte) (any, error) {
	r, err := DecodeDeadLetter(key, value)
	if err != nil {
		return nil, err
	}
	return deadLetterDump{Origin: r.Origin.String(), Item: r.Item, Reason: r.Reason, Raw: string(r.Raw)}, nil
}

// dumpMeta shows a value that is not JSON as a JSON string.
func dumpMeta(key, value []byte) (any, error) {
	v := json.RawMessage(value)
	if !json.Valid(value) {
		v, _ = json.Marshal(string(value))
	}
	return metaDump{Name: string(key), Value: v}, nil
}
