package schemas

import (
	"bytes"
	"testing"
)

// TestTermDayAppendCellIsCell: AppendCell makes the cell Cell makes, the
// term made valid UTF-8 the same way, into a buffer it shares.
func TestTermDayAppendCellIsCell(t *testing.T) {
	var buf []byte
	for _, r := range []TermDayRow{
		{Day: 20393, Field: TermFieldHashtag, Term: "#vote", Lang: "en", Tweets: 12},
		{Day: 1, Field: TermFieldText, Term: "caf\xe9", Lang: "", Tweets: 1},
		{Day: 65535, Field: TermFieldURL, Term: "", Lang: "zh-Hant", Tweets: 1 << 40},
	} {
		var c Cell
		before := len(buf)
		c, buf = r.AppendCell(buf)
		want := r.Cell()
		if c.Table != want.Table || !bytes.Equal(c.Key, want.Key) || !bytes.Equal(c.Value, want.Value) || c.Delete {
			t.Errorf("%+v: AppendCell %q %q, Cell %q %q", r, c.Key, c.Value, want.Key, want.Value)
		}
		if len(buf) != before+len(c.Key)+len(c.Value) {
			t.Errorf("%+v: the buffer grew by %d bytes, want the key's and value's %d", r, len(buf)-before, len(c.Key)+len(c.Value))
		}
	}
}

// TestSplitTermKey: the head, term, field and row key of a term index
// key, as TermRow.Cell makes it; malformed keys are refused.
func TestSplitTermKey(t *testing.T) {
	k := NewRowKey(1_790_000_000, []byte("x"))
	k[11] = 0 // a row key may hold NUL bytes
	for _, r := range []TermRow{{Term: "#vote", Field: "text", Key: k}, {Term: "a", Field: "url", Key: k, Freq: 3}} {
		c := r.Cell()
		head, term, field, rk, ok := SplitTermKey(c.Key)
		if !ok || string(term) != r.Term || string(field) != r.Field || rk != r.Key || !bytes.Equal(head, TermPrefix(r.Term, r.Field)) {
			t.Errorf("%+v: head %q term %q field %q key %v ok %v", r, head, term, field, rk, ok)
		}
	}
	for _, key := range [][]byte{nil, []byte("short"), append([]byte("term\x00text"), k[:]...), append([]byte("nofield\x00"), k[:]...)} {
		if _, _, _, _, ok := SplitTermKey(key); ok {
			t.Errorf("%q: split, want refused", key)
		}
	}
}
