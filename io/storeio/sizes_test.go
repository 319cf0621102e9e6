package storeio

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// TestSplitKeysCutEvenly: the keys SplitKeys returns cut a table on disk
// into parts of about equal numbers of cells (its cells of equal size),
// in order and within the table, and EstimateBytes sees the table and
// not the empty one beside it.
func TestSplitKeysCutEvenly(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200_000
	var cells []schemas.Cell
	for i := range n {
		// Terms of every first letter, skewed towards "s".
		term := fmt.Sprintf("%c%07d", "abcdefghijklmnopqrsssssssssssssssstuvwxyz"[i%41], i)
		cells = append(cells, schemas.TermRow{Term: term, Field: "text", Key: schemas.NewRowKey(int64(i), []byte(term))}.Cell())
	}
	if err := st.Write(cells); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil { // flushed into files on disk
		t.Fatal(err)
	}
	if st, err = OpenRead(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if total, err := st.EstimateBytes(schemas.TableTerms, nil, nil); err != nil || total < n*10 {
		t.Fatalf("the term table on disk: %d bytes, %v; want at least %d", total, err, n*10)
	}
	if other, err := st.EstimateBytes(schemas.TableGeo, nil, nil); err != nil || other != 0 {
		t.Errorf("the empty geo table on disk: %d bytes, %v; want 0", other, err)
	}
	keys, err := st.SplitKeys(schemas.TableTerms, 4)
	if err != nil || len(keys) != 3 {
		t.Fatalf("split keys %q, %v; want 3", keys, err)
	}
	bounds := append(append([][]byte{nil}, keys...), nil)
	for i := range 4 {
		count := 0
		if err := st.Scan(context.Background(), schemas.TableTerms, bounds[i], bounds[i+1], func(_, _ []byte) error {
			count++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if count < n/4*7/10 || count > n/4*13/10 {
			t.Errorf("part %d of the split %q: %d cells, want about %d", i, keys, count, n/4)
		}
		if i > 0 && bytes.Compare(bounds[i-1], bounds[i]) >= 0 {
			t.Errorf("split keys %q out of order", keys)
		}
	}
}
