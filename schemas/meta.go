package schemas

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The names of the metadata table's rows (MetaRow), all in one place: a
// name is one of these constants, or begins with one of these prefixes.
// What each row is for is told where it is written and read.
const (
	// IndexParam holds the index parameters of the last run
	// (pipelines.CurrentParams). GeoDayMarkersParam (geodays.go) is the
	// other parameter.
	IndexParam = "param/index"
	// RunRecordPrefix begins the records of runs: "run/<start time>"
	// (pipelines.RunRecord).
	RunRecordPrefix = "run/"
	// ForgetPrefix begins the records of forgets: "forget/<start time>"
	// -> its summary (maintain.Forget).
	ForgetPrefix = "forget/"
	// RecountPrefix begins the marks of minutes whose frequency counts are
	// to be recounted from the raw table: "recount/YYYYMMDDhhmm"
	// (transforms.RawFn writes them, pipelines.Run recounts and removes
	// them).
	RecountPrefix = "recount/"
	// CountingPrefix begins the marks of minutes whose tweets a stream has
	// stored and may not have counted yet: "counting/YYYYMMDDhhmm"
	// (transforms.RawFn.MarkCounting).
	CountingPrefix = "counting/"
	// RebuildPrefix begins the marks of minutes whose term and geo cells,
	// and counts, are to be derived again from their raw rows: minutes of
	// a stream that died ("rebuild/YYYYMMDDhhmm"; pipelines.Run).
	RebuildPrefix = "rebuild/"
	// NoticePrefix begins the records of compliance notices:
	// "notice/<kind>/<id>" (and "/<up_to id>" for scrub_geo), the value
	// the message's bytes (transforms.NoticeCells).
	NoticePrefix = "notice/"
	// ScrubGeoPrefix begins the marks of scrub_geo messages to apply:
	// "scrubgeo/<user id>/<up_to id>" (transforms.ScrubGeoMark; applied and
	// removed by pipelines.Run).
	ScrubGeoPrefix = "scrubgeo/"
	// CollisionPrefix begins the records of row keys that hold (or held)
	// more than one tweet, a row-key collision: "collision/<row key in
	// hex>" (CollisionName; transforms.RawFn writes them where Dedup or
	// Identify finds a collision, Identify removes one once its row key
	// holds one tweet again (transforms.CollisionDeletes), and the query
	// engine reads them to count each such row key's tweets; see
	// pipelines/query/collide.go).
	CollisionPrefix = "collision/"
	// AuthorsParam is the metadata row saying that every tweet the raw
	// table holds has its TweetAuthors cell (AuthorRow): written when
	// indexing began into an empty sink (pipelines.Run), as
	// GeoDayMarkersParam. A sink indexed before the table existed never
	// gets it, and its questions about users read the raw rows instead.
	AuthorsParam = "param/authors"
	// TokenizerParam is the metadata row naming the tokenizer versions
	// (transforms.TokenizerVersion) whose term rows the sink holds
	// (TokenizerValue): written when indexing begins into an empty sink,
	// and by a run told to add tweets of another version to a sink
	// (pipelines.Config.MixTokenizers). A sink indexed before the row
	// existed has none: the version of its term rows is not known.
	TokenizerParam = "param/tokenizer"
)

// AuthorsValue is the value of AuthorsParam.
var AuthorsValue = []byte(`{"complete":true}`)

// TokenizerUnrecorded stands, in TokenizerValue.Versions, for the tweets
// of a sink indexed before tokenizer versions were recorded.
const TokenizerUnrecorded = 0

// TokenizerValue is the value of TokenizerParam, in JSON: {"version":1}
// for a sink whose term rows were all written by tokenizer version 1;
// {"version":2,"versions":[1,2]} for one that mixes versions, Version
// being that of the run that added the last one and Versions every
// version whose term rows the sink holds (TokenizerUnrecorded, 0, for
// the tweets indexed before versions were recorded).
type TokenizerValue struct {
	Version  int   `json:"version"`
	Versions []int `json:"versions,omitempty"`
}

// ParseTokenizerValue decodes the value of TokenizerParam.
func ParseTokenizerValue(b []byte) (TokenizerValue, error) {
	var v TokenizerValue
	if err := json.Unmarshal(b, &v); err != nil {
		return TokenizerValue{}, fmt.Errorf("%s %q: %w", TokenizerParam, b, err)
	}
	return v, nil
}

// All returns the versions whose term rows the sink holds, ascending.
func (v TokenizerValue) All() []int {
	if len(v.Versions) == 0 {
		return []int{v.Version}
	}
	all := slices.Clone(v.Versions)
	slices.Sort(all)
	return slices.Compact(all)
}

// With returns v with the term rows of version added: Version is version,
// and Versions lists every version when there is more than one.
func (v TokenizerValue) With(version int) TokenizerValue {
	all := v.All()
	if !slices.Contains(all, version) {
		all = append(all, version)
		slices.Sort(all)
	}
	w := TokenizerValue{Version: version}
	if len(all) > 1 {
		w.Versions = all
	}
	return w
}

// Cell encodes v as its metadata cell.
func (v TokenizerValue) Cell() Cell {
	b, _ := json.Marshal(v)
	return MetaRow{Name: TokenizerParam, Value: b}.Cell()
}

// CollisionName returns the metadata row name that records a collision
// on row key k.
func CollisionName(k RowKey) string { return CollisionPrefix + k.String() }

// ParseCollisionName returns the row key of a CollisionName, and whether
// name is one.
func ParseCollisionName(name string) (RowKey, bool) {
	var k RowKey
	h := strings.TrimPrefix(name, CollisionPrefix)
	if len(h) != 2*RowKeyLen || len(h) == len(name) {
		return k, false
	}
	if _, err := hex.Decode(k[:], []byte(h)); err != nil {
		return k, false
	}
	return k, true
}
