package transforms

import (
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestDeadLetterCellsOneRowEach: several bad items of one line (a one-line
// array [1,2,3], a v2 page with bad elements) are one row each, numbered
// the same way on every run.
func TestDeadLetterCellsOneRowEach(t *testing.T) {
	var dec schemas.Decoder
	var out schemas.Decoded
	for _, rec := range []schemas.Record{
		{Origin: schemas.Origin{Source: "a.json", Line: 1}, Data: []byte(`[1,2,3]`)},
		{Origin: schemas.Origin{Source: "a.json", Line: 2}, Data: []byte(`{"data":[1,{"id":"x"},"s"],"includes":{}}`)},
		{Origin: schemas.Origin{Source: "a.json", Line: 3}, Data: []byte(`{"broken`)},
	} {
		dec.Decode(rec, &out)
	}
	if len(out.Rejects) != 7 {
		t.Fatalf("%d rejects, want 7: %+v", len(out.Rejects), out.Rejects)
	}
	cells := DeadLetterCells(nil, out.Rejects)
	keys := map[string]bool{}
	type item struct {
		line int64
		item uint32
	}
	var got []item
	for _, c := range cells {
		keys[string(c.Key)] = true
		r, err := schemas.DecodeDeadLetter(c.Key, c.Value)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, item{r.Origin.Line, r.Item})
	}
	if len(keys) != len(cells) {
		t.Errorf("%d dead letters have %d distinct keys", len(cells), len(keys))
	}
	want := []item{{1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}, {3, 0}}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("(line, item) = %v, want %v", got, want)
		}
	}
	again := DeadLetterCells(nil, out.Rejects)
	for i := range cells {
		if string(cells[i].Key) != string(again[i].Key) {
			t.Errorf("key %d differs between runs: %q, %q", i, cells[i].Key, again[i].Key)
		}
	}
}
