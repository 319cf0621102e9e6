package schemas

import (
	"reflect"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/coder"
)

func TestRecordAndCellCodecRoundTrip(t *testing.T) {
	r := Record{Origin: Origin{Source: "kafka:tweets/3", Line: 1234}, Data: []byte("{\"x\":1}"), Fault: "truncated gzip stream", From: 1230, Start: 17}
	got, err := decodeRecord(encodeRecord(r))
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("record round trip: %+v, %v", got, err)
	}
	gap := Record{Origin: Origin{Source: "kafka:tweets/3", Line: 1240}, Data: []byte{}, From: 1235, Start: 17, Gap: true}
	if got, err := decodeRecord(encodeRecord(gap)); err != nil || !reflect.DeepEqual(got, gap) {
		t.Errorf("gap record round trip: %+v, %v", got, err)
	}
	c := TermRow{Term: "#go", Field: "text", Freq: 3}.Cell()
	gc, err := decodeCell(encodeCell(c))
	if err != nil || !reflect.DeepEqual(gc, c) {
		t.Errorf("cell round trip: %+v, %v", gc, err)
	}
	d := Cell{Table: TableRaw, Key: []byte("k"), Delete: true}
	if gd, err := decodeCell(encodeCell(d)); err != nil || !gd.Delete || gd.Table != TableRaw || string(gd.Key) != "k" {
		t.Errorf("delete cell round trip: %+v, %v", gd, err)
	}
	enc := encodeRecord(r)
	for n := range len(enc) {
		if _, err := decodeRecord(enc[:n]); err == nil {
			t.Fatalf("decoding %d of %d record bytes: no error", n, len(enc))
		}
	}
}

// TestCodersRegistered checks that importing this package registers the
// Record and Cell coders: a source or sink that imports only schemas (as
// kafkaio does) shuffles with them, in its tests as in production.
func TestCodersRegistered(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(Record{}), reflect.TypeOf(Cell{})} {
		if coder.LookupCustomCoder(typ) == nil {
			t.Errorf("no coder registered for %v", typ)
		}
	}
}
