package schemas

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// cqlTestCells returns cells of every table, with the edge cases the mapping
// must carry byte for byte.
func cqlTestCells(n int) []Cell {
	rng := rand.New(rand.NewPCG(1, 2))
	var cells []Cell
	base := time.Date(2018, 10, 10, 20, 19, 24, 0, time.UTC).Unix()
	terms := []string{"#apacheflink", "and", "東京", "مرحبا", "", "a\xffb", "tweet"}
	for i := 0; i < n; i++ {
		sec := base + int64(rng.IntN(3*86400)) - 86400
		js := []byte(fmt.Sprintf(`{"id_str":"%d","text":"t%d"}`, i, rng.Int()))
		k := NewRowKey(sec, js)
		cells = append(cells,
			RawRow{Key: k, JSON: js}.Cell(),
			TermRow{Term: terms[i%len(terms)], Field: []string{"text", "user"}[i%2], Key: k, Freq: uint32(1 + i%3)}.Cell(),
			FrequencyRow{Minute: Minute(sec), Lang: []string{"en", "ja", "und", "zh-cn", ""}[i%5], Count: int64(rng.IntN(1e6))}.Cell(),
			GeoRow{Geo: NewGeoKey(Spread(Murmur2(js)), Day(sec), Geohash(35.68, 139.76)), Key: k, Lat: float32(rng.Float64()*180 - 90), Lon: float32(rng.Float64()*360 - 180)}.Cell(),
			DeadLetterRow{Origin: Origin{Source: "2018/10/10/20/19.json.bz2!x\x00y", Line: int64(i * 997)}, Item: uint32(i % 3), Reason: "bad json: ünexpected", Raw: js[:i%len(js)]}.Cell(),
			DeadLetterRow{Origin: Origin{Source: "2018/10/10/20/19.json.bz2", Line: int64(i * 997)}, Item: uint32(i % 3), Reason: "not a tweet", Raw: js[:i%len(js)]}.Cell(),
			MetaRow{Name: fmt.Sprintf("run/%d", i), Value: []byte(`{"ok":true}`)}.Cell(),
		)
	}
	cells = append(cells,
		RawRow{Key: NewRowKey(0, nil), JSON: nil}.Cell(),
		MetaRow{Name: "empty", Value: nil}.Cell(),
		DeadLetterRow{Origin: Origin{Source: "", Line: 0}}.Cell(),
		GeoRow{Geo: NewGeoKey(254, 65535, "zzzzzzzz"), Key: NewRowKey(65535*86400, nil), Lat: -90, Lon: 180}.Cell(),
	)
	return cells
}

func TestCQLValuesRoundTrip(t *testing.T) {
	for _, c := range cqlTestCells(200) {
		ct := CQLTableOf(c.Table)
		vals, err := CQLValues(nil, c)
		if err != nil {
			t.Fatalf("CQLValues(%s %q): %v", c.Table.Name(), c.Key, err)
		}
		if len(vals) != len(ct.Columns()) {
			t.Fatalf("%s: %d values for %d columns", ct.Name, len(vals), len(ct.Columns()))
		}
		for i, col := range ct.Columns() {
			if !goTypeMatches(col.Type, vals[i]) {
				t.Fatalf("%s.%s: value %T does not match CQL type %s", ct.Name, col.Name, vals[i], col.Type)
			}
		}
		back, err := CellFromCQL(ct, vals)
		if err != nil {
			t.Fatalf("CellFromCQL(%s): %v", ct.Name, err)
		}
		if back.Table != c.Table || !bytes.Equal(back.Key, c.Key) || !bytes.Equal(back.Value, c.Value) {
			t.Fatalf("%s round trip:\n got %q=%q\nwant %q=%q", ct.Name, back.Key, back.Value, c.Key, c.Value)
		}
		keys, err := CQLKeyValues(nil, c.Table, c.Key)
		if err != nil {
			t.Fatalf("CQLKeyValues(%s): %v", ct.Name, err)
		}
		if len(keys) != ct.KeyColumns() {
			t.Fatalf("%s: %d key values, want %d", ct.Name, len(keys), ct.KeyColumns())
		}
		for i := range keys {
			if !cqlValueEqual(keys[i], vals[i]) {
				t.Fatalf("%s: key value %d = %v, insert has %v", ct.Name, i, keys[i], vals[i])
			}
		}
	}
}

func goTypeMatches(t CQLType, v any) bool {
	switch v := v.(type) {
	case []byte:
		return t == CQLBlob && v != nil
	case string:
		return t == CQLText
	case int8:
		return t == CQLTinyint
	case int16:
		return t == CQLSmallint
	case int32:
		return t == CQLInt
	case int64:
		return t == CQLBigint
	case float32:
		return t == CQLFloat
	case time.Time:
		return t == CQLTimestamp || t == CQLDate
	}
	return false
}

// TestCQLTextColumns: every column whose value is text is a CQL text
// column (cqlsh and other drivers show it as a string); blobs are only the
// bytes that must come back as read.
func TestCQLTextColumns(t *testing.T) {
	blobs := map[string]bool{"raw_tweets.row_key": true, "raw_tweets.tweet": true, "term_index.row_key": true,
		"geo_temporal.row_key": true, "dead_letter.raw": true, "tweet_identity.row_key": true,
		"tweet_authors.row_key": true, "tweet_edges.row_key": true, "term_index.positions": true}
	texts := map[string]bool{"term_index.term": true, "term_index.field": true, "tweet_frequency.lang": true,
		"geo_temporal.geohash": true, "dead_letter.source": true, "dead_letter.reason": true,
		"metadata.name": true, "metadata.value": true, "tweet_authors.lang": true, "tweet_authors.screen_name": true,
		"tweet_edges.type": true, "tweet_edges.source": true, "tweet_edges.target": true,
		"term_days.field": true, "term_days.term": true, "term_days.lang": true,
		"edge_days.type": true, "edge_days.source": true, "edge_days.target": true}
	for _, ct := range CQLTables() {
		for _, c := range ct.Columns() {
			name := ct.Name + "." + c.Name
			switch {
			case texts[name] && c.Type != CQLText:
				t.Errorf("%s is %s, want text", name, c.Type)
			case blobs[name] && c.Type != CQLBlob:
				t.Errorf("%s is %s, want blob", name, c.Type)
			case !texts[name] && !blobs[name] && (c.Type == CQLText || c.Type == CQLBlob):
				t.Errorf("%s is %s: say here whether it holds text", name, c.Type)
			}
		}
	}
}

// TestCQLTextIsValidUTF8: a term, a dead letter's source and reason that
// are not UTF-8 are stored with U+FFFD in their place, and the cells map
// to CQL values (Cassandra refuses text that is not UTF-8).
func TestCQLTextIsValidUTF8(t *testing.T) {
	k := NewRowKey(1539202764, []byte("x"))
	term := TermRow{Term: "a\xffb", Field: "text", Key: k}.Cell()
	dl := DeadLetterRow{Origin: Origin{Source: "dir/\xe9t\xe9.json", Line: 3}, Reason: "bad \xff byte", Raw: []byte("\xff")}.Cell()
	for _, c := range []Cell{term, dl} {
		vals, err := CQLValues(nil, c)
		if err != nil {
			t.Fatalf("%s cell %q: %v", c.Table.Name(), c.Key, err)
		}
		if back, err := CellFromCQL(CQLTableOf(c.Table), vals); err != nil || !bytes.Equal(back.Key, c.Key) || !bytes.Equal(back.Value, c.Value) {
			t.Errorf("%s cell %q does not round-trip: %q, %v", c.Table.Name(), c.Key, back.Key, err)
		}
	}
	if r, _ := DecodeTerm(term.Key, term.Value); r.Term != "a\uFFFDb" {
		t.Errorf("term stored as %q, want %q", r.Term, "a\uFFFDb")
	}
	r, _ := DecodeDeadLetter(dl.Key, dl.Value)
	if r.Origin.Source != "dir/\uFFFDt\uFFFD.json" || r.Reason != "bad \uFFFD byte" || string(r.Raw) != "\xff" {
		t.Errorf("dead letter stored as %q, %q, %q", r.Origin.Source, r.Reason, r.Raw)
	}
	if _, err := CQLValues(nil, MetaRow{Name: "run/1", Value: []byte("\xff")}.Cell()); err == nil {
		t.Error("CQLValues accepted a metadata value that is not UTF-8")
	}
}

func TestCQLDerivedPartitionColumns(t *testing.T) {
	sec := time.Date(2018, 10, 10, 20, 19, 24, 0, time.UTC).Unix()
	js := []byte(`{"id_str":"1"}`)
	k := NewRowKey(sec, js)

	raw, err := CQLValues(nil, RawRow{Key: k, JSON: js}.Cell())
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2018, 10, 10, 20, 19, 0, 0, time.UTC); !raw[0].(time.Time).Equal(want) {
		t.Errorf("raw minute = %v, want %v", raw[0], want)
	}
	if want := int8(Murmur2(k[:]) % RawBuckets); raw[1] != want {
		t.Errorf("raw bucket = %v, want %v", raw[1], want)
	}

	// An authors row lives in the partition of its tweet's raw row.
	author, err := CQLValues(nil, AuthorRow{Key: k, ID: 1, Lang: "en", ScreenName: "U1Scr"}.Cell())
	if err != nil {
		t.Fatal(err)
	}
	if !author[0].(time.Time).Equal(raw[0].(time.Time)) || author[1] != raw[1] || author[5] != "u1scr" {
		t.Errorf("authors minute/bucket/name = %v/%v/%v, want the raw row's %v/%v and u1scr", author[0], author[1], author[5], raw[0], raw[1])
	}

	term, err := CQLValues(nil, TermRow{Term: "and", Field: "text", Key: k, Freq: 2}.Cell())
	if err != nil {
		t.Fatal(err)
	}
	if !term[2].(time.Time).Equal(time.Date(2018, 10, 10, 0, 0, 0, 0, time.UTC)) || term[3] != int8(20) || term[5] != int32(2) {
		t.Errorf("term day/hour/freq = %v/%v/%v, want 2018-10-10/20/2", term[2], term[3], term[5])
	}

	dl, err := CQLValues(nil, DeadLetterRow{Origin: Origin{Source: "f", Line: 2999}}.Cell())
	if err != nil {
		t.Fatal(err)
	}
	if dl[1] != int64(2) {
		t.Errorf("dead-letter chunk of line 2999 = %v, want 2", dl[1])
	}
}

func TestCQLValuesRejects(t *testing.T) {
	k := NewRowKey(1539202764, []byte("x"))
	good := TermRow{Term: "a", Field: "text", Key: k}.Cell()
	tests := []struct {
		name string
		cell Cell
	}{
		{"short raw key", Cell{Table: TableRaw, Key: k[:11]}},
		{"term freq 1 spelled out", Cell{Table: TableTerms, Key: good.Key, Value: []byte("1")}},
		{"term freq with leading zero", Cell{Table: TableTerms, Key: good.Key, Value: []byte("02")}},
		{"term field not UTF-8", TermRow{Term: "a", Field: "te\xffxt", Key: k}.Cell()},
		{"minute not a time", FrequencyRow{Minute: "201813012500", Lang: "en", Count: 1}.Cell()},
		{"count with plus sign", Cell{Table: TableFrequency, Key: []byte("201810102019en"), Value: []byte("+3")}},
		{"geo value short", Cell{Table: TableGeo, Key: make([]byte, GeoKeyLen+RowKeyLen), Value: []byte{1}}},
		{"meta name not UTF-8", MetaRow{Name: "\xff", Value: []byte("{}")}.Cell()},
		{"unknown table", Cell{Table: 'x'}},
	}
	for _, tt := range tests {
		if _, err := CQLValues(nil, tt.cell); err == nil {
			t.Errorf("%s: CQLValues accepted %q=%q", tt.name, tt.cell.Key, tt.cell.Value)
		}
	}
}

func TestCellFromCQLChecksDerivedColumns(t *testing.T) {
	k := NewRowKey(1539202764, []byte("x"))
	vals, err := CQLValues(nil, RawRow{Key: k, JSON: []byte("{}")}.Cell())
	if err != nil {
		t.Fatal(err)
	}
	vals[1] = (vals[1].(int8) + 1) % RawBuckets // a row in the wrong bucket
	if _, err := CellFromCQL(CQLRaw, vals); err == nil {
		t.Error("CellFromCQL accepted a raw row stored in the wrong bucket")
	}
	if _, err := CellFromCQL(CQLRaw, vals[:3]); err == nil {
		t.Error("CellFromCQL accepted a short row")
	}
}

func TestAppendCQLPartition(t *testing.T) {
	at := func(h, m int) RowKey {
		return NewRowKey(time.Date(2018, 10, 10, h, m, 0, 0, time.UTC).Unix(), []byte(fmt.Sprint(h, m)))
	}
	part := func(c Cell) string {
		v, err := CQLValues(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		return string(AppendCQLPartition(nil, c, v))
	}
	same := [][2]Cell{
		{TermRow{Term: "go", Field: "text", Key: at(10, 1)}.Cell(), TermRow{Term: "go", Field: "text", Key: at(10, 59), Freq: 3}.Cell()},
		{FrequencyRow{Minute: "201810100000", Lang: "en"}.Cell(), FrequencyRow{Minute: "201810102359", Lang: "ja"}.Cell()},
		{DeadLetterRow{Origin: Origin{Source: "f", Line: 1000}}.Cell(), DeadLetterRow{Origin: Origin{Source: "f", Line: 1999}}.Cell()},
	}
	for _, p := range same {
		if part(p[0]) != part(p[1]) {
			t.Errorf("%q and %q should share a partition", p[0].Key, p[1].Key)
		}
	}
	differ := [][2]Cell{
		{TermRow{Term: "go", Field: "text", Key: at(10, 1)}.Cell(), TermRow{Term: "go", Field: "text", Key: at(11, 1)}.Cell()},
		{TermRow{Term: "go", Field: "text", Key: at(10, 1)}.Cell(), TermRow{Term: "go", Field: "user", Key: at(10, 1)}.Cell()},
		{TermRow{Term: "ab", Field: "c", Key: at(10, 1)}.Cell(), TermRow{Term: "a", Field: "bc", Key: at(10, 1)}.Cell()},
		{DeadLetterRow{Origin: Origin{Source: "f", Line: 999}}.Cell(), DeadLetterRow{Origin: Origin{Source: "f", Line: 1000}}.Cell()},
		{MetaRow{Name: "a"}.Cell(), MetaRow{Name: "b"}.Cell()},
		{MetaRow{Name: "a"}.Cell(), TermRow{Term: "a", Field: "", Key: at(0, 0)}.Cell()},
	}
	for _, p := range differ {
		if part(p[0]) == part(p[1]) {
			t.Errorf("%q and %q should be in different partitions", p[0].Key, p[1].Key)
		}
	}
}

func TestCQLSchemaLayout(t *testing.T) {
	stmts := CQLSchema("tweetindex", ReplicationOptions{})
	if len(stmts) != 1+len(Tables) {
		t.Fatalf("%d schema statements, want %d", len(stmts), 1+len(Tables))
	}
	if want := "CREATE KEYSPACE IF NOT EXISTS tweetindex WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'} AND durable_writes = true"; stmts[0] != want {
		t.Errorf("keyspace statement:\n got %s\nwant %s", stmts[0], want)
	}
	// The primary keys are the layout contract of the schema.
	keys := map[string]string{
		"raw_tweets":      "PRIMARY KEY ((minute, bucket), row_key, id)",
		"term_index":      "PRIMARY KEY ((term, field, day, hour), row_key)",
		"tweet_frequency": "PRIMARY KEY ((day), minute, lang)",
		"geo_temporal":    "PRIMARY KEY ((spread, day), geohash, row_key)",
		"dead_letter":     "PRIMARY KEY ((source, chunk), line, item)",
		"metadata":        "PRIMARY KEY ((name))",
		"tweet_identity":  "PRIMARY KEY ((id))",
		"tweet_authors":   "PRIMARY KEY ((minute, bucket), row_key, id)",
		"term_days":       "PRIMARY KEY ((day, field, bucket), term, lang)",
	}
	for i, ct := range CQLTables() {
		s := stmts[i+1]
		if !strings.HasPrefix(s, "CREATE TABLE IF NOT EXISTS tweetindex."+ct.Name+" (") {
			t.Errorf("statement %d does not create %s: %s", i+1, ct.Name, s)
		}
		if !strings.Contains(s, keys[ct.Name]) {
			t.Errorf("%s: want %s in\n%s", ct.Name, keys[ct.Name], s)
		}
		if ct.Table != Tables[i] {
			t.Errorf("CQL table %d is %s, want the table of %s", i, ct.Name, Tables[i].Name())
		}
		if CQLTableOf(ct.Table) != ct || CQLTableNamed(ct.Name) != ct {
			t.Errorf("lookup of %s failed", ct.Name)
		}
		if !strings.Contains(ct.Reason, "MB") && ct.Table != TableMeta {
			t.Errorf("%s: the reason does not state a partition size", ct.Name)
		}
	}
	script := CQLSchemaScript("tweetindex", ReplicationOptions{})
	if strings.Count(script, ";\n") != len(stmts) || !strings.Contains(script, "-- Partition (minute of created_at") {
		t.Errorf("schema script lacks statements or reasons:\n%s", script)
	}
}

func TestCQLCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range CQLCatalog("ks") {
		if seen[s.Text] {
			t.Errorf("duplicate statement %s", s.Text)
		}
		seen[s.Text] = true
		if got := strings.Count(s.Text, "?"); got != len(s.Binds) {
			t.Errorf("%s: %d markers, %d bind types", s.Text, got, len(s.Binds))
		}
		for i, idx := range s.PartitionKeyIndexes {
			if s.Binds[idx] != s.Table.PartitionKey[i] {
				t.Errorf("%s: partition key index %d points at %v", s.Text, i, s.Binds[idx])
			}
		}
		switch s.Kind {
		case CQLInsert:
			if len(s.Binds) != len(s.Table.Columns())+1 || s.Binds[len(s.Binds)-1].Name != TTLBindName {
				t.Errorf("%s: binds %v", s.Text, s.Binds)
			}
		case CQLDelete:
			if len(s.Binds) != s.Table.KeyColumns() || !strings.HasPrefix(s.Text, "DELETE FROM ks."+s.Table.Name+" WHERE ") {
				t.Errorf("%s: binds %v", s.Text, s.Binds)
			}
		case CQLSelectAll:
			if len(s.Binds) != 0 || len(s.PartitionKeyIndexes) != 0 {
				t.Errorf("%s: binds %v", s.Text, s.Binds)
			}
		case CQLSelectPartition:
			if len(s.Binds) != len(s.Table.PartitionKey) {
				t.Errorf("%s: binds %v", s.Text, s.Binds)
			}
		case CQLSelectRow:
			if len(s.Binds) != s.Table.KeyColumns() {
				t.Errorf("%s: binds %v", s.Text, s.Binds)
			}
		case CQLSelectSlice:
			c := s.Table.Clustering[0]
			if n := len(s.Table.PartitionKey); len(s.Binds) != n+2 || s.Binds[n] != c || s.Binds[n+1] != c ||
				!strings.HasSuffix(s.Text, " AND "+c.Name+" >= ? AND "+c.Name+" < ?") {
				t.Errorf("%s: binds %v", s.Text, s.Binds)
			}
		default:
			t.Errorf("%s: unexpected kind %s", s.Text, s.Kind)
		}
	}
	if len(seen) != 6*len(Tables)-4 { // metadata and identity have no clustering: no row or slice select
		t.Errorf("%d statements, want %d", len(seen), 6*len(Tables)-4)
	}
}

func TestParseReplication(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantCQL string
		bad     bool
	}{
		{"", "SimpleStrategy:1", "{'class': 'SimpleStrategy', 'replication_factor': '1'}", false},
		{"3", "SimpleStrategy:3", "{'class': 'SimpleStrategy', 'replication_factor': '3'}", false},
		{"SimpleStrategy:2", "SimpleStrategy:2", "", false},
		{"NetworkTopologyStrategy:dc2=2,dc1=3", "NetworkTopologyStrategy:dc1=3,dc2=2", "{'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '2'}", false},
		{"eu-west=3", "NetworkTopologyStrategy:eu-west=3", "", false},
		{"0", "", "", true},
		{"SimpleStrategy:x", "", "", true},
		{"NetworkTopologyStrategy:", "", "", true},
		{"NetworkTopologyStrategy:dc'1=3", "", "", true},
		{"LocalStrategy:1", "", "", true},
	}
	for _, tt := range tests {
		o, err := ParseReplication(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseReplication(%q) accepted %v", tt.in, o)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseReplication(%q): %v", tt.in, err)
			continue
		}
		if o.String() != tt.want {
			t.Errorf("ParseReplication(%q) = %s, want %s", tt.in, o, tt.want)
		}
		if tt.wantCQL != "" && o.CQL() != tt.wantCQL {
			t.Errorf("ParseReplication(%q).CQL() = %s, want %s", tt.in, o.CQL(), tt.wantCQL)
		}
	}
}

func TestValidKeyspace(t *testing.T) {
	for _, ok := range []string{"tweetindex", "t", "tweets_2018", strings.Repeat("a", 48)} {
		if err := ValidKeyspace(ok); err != nil {
			t.Errorf("ValidKeyspace(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "TweetIndex", "1tweets", "_x", "a-b", "a.b", strings.Repeat("a", 49), "a b"} {
		if ValidKeyspace(bad) == nil {
			t.Errorf("ValidKeyspace(%q) accepted it", bad)
		}
	}
}

// TestCQLPartitions: the partition functions name the partition that
// CQLValues puts a row of that minute, hour, day or spread in.
func TestCQLPartitions(t *testing.T) {
	pk := func(c Cell) []any {
		t.Helper()
		v, err := CQLValues(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		return v[:len(CQLTableOf(c.Table).PartitionKey)]
	}
	same := func(name string, got, want []any) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
		}
		for i := range got {
			if !cqlValueEqual(got[i], want[i]) {
				t.Errorf("%s: value %d = %v (%T), the row's is %v (%T)", name, i, got[i], got[i], want[i], want[i])
			}
		}
	}
	for _, sec := range []int64{0, 59, 3599, 1539202764, 86400*20000 + 23*3600 + 59*60 + 59} {
		js := []byte(fmt.Sprint(sec))
		k := NewRowKey(sec, js)
		raw := RawRow{Key: k, ID: 1, JSON: js}.Cell()
		same("raw", CQLRawPartition(sec, int(Murmur2(k[:])%RawBuckets)), pk(raw))
		same("terms", CQLTermPartition("go", "text", sec), pk(TermRow{Term: "go", Field: "text", Key: k}.Cell()))
		same("frequency", CQLFrequencyPartition(Day(sec)), pk(FrequencyRow{Minute: Minute(sec), Lang: "en", Count: 1}.Cell()))
		g := NewGeoKey(Spread(Murmur2(js)), Day(sec), "u4pruydq")
		same("geo", CQLGeoPartition(g.Spread(), g.Day()), pk(GeoRow{Geo: g, Key: k}.Cell()))
	}
}
