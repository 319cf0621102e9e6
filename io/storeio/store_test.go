package storeio

import (
	"context"
	"fmt"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

func TestStoreUpsertAndOrderedScan(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	k1 := schemas.NewRowKey(100, []byte("a"))
	k2 := schemas.NewRowKey(50, []byte("b"))
	cells := []schemas.Cell{
		schemas.TermRow{Term: "go", Field: "text", Key: k1, Freq: 2}.Cell(),
		schemas.TermRow{Term: "go", Field: "text", Key: k2}.Cell(),
		schemas.TermRow{Term: "gopher", Field: "text", Key: k2}.Cell(),
		schemas.TermRow{Term: "go", Field: "user", Key: k1}.Cell(),
		schemas.FrequencyRow{Minute: "202611011205", Lang: "en", Count: 3}.Cell(),
	}
	if err := st.Write(cells); err != nil {
		t.Fatal(err)
	}
	// An upsert of the same key replaces the value.
	if err := st.Write([]schemas.Cell{schemas.FrequencyRow{Minute: "202611011205", Lang: "en", Count: 5}.Cell()}); err != nil {
		t.Fatal(err)
	}
	var got []string
	prefix := schemas.TermPrefix("go", "text")
	end := append(prefix[:len(prefix):len(prefix)], 0xff)
	err = st.Scan(context.Background(), schemas.TableTerms, prefix, end, func(k, v []byte) error {
		r, err := schemas.DecodeTerm(k, v)
		if err != nil {
			return err
		}
		got = append(got, fmt.Sprintf("%s/%s/%d/%d", r.Term, r.Field, r.Key.Seconds(), r.Freq))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"go/text/50/1", "go/text/100/2"} // time order within a term; "gopher" and "user" excluded
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("prefix scan = %v, want %v", got, want)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopen: the data persisted, and the upsert won.
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, ok, err := st.Get(schemas.TableFrequency, []byte("202611011205en"))
	if err != nil || !ok || string(v) != "5" {
		t.Errorf("Get after reopen = %q, %v, %v; want \"5\"", v, ok, err)
	}
	n := 0
	if err := st.Scan(context.Background(), schemas.TableTerms, nil, nil, func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("terms table has %d cells, want 4", n)
	}
}

func TestOpenSharesOneDatabasePerDirectory(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir + "/.")
	if err != nil {
		t.Fatalf("second Open in one process: %v", err)
	}
	if a != b {
		t.Fatal("two Opens of one directory gave two databases")
	}
	if err := a.Write([]schemas.Cell{schemas.MetaRow{Name: "x", Value: []byte("1")}.Cell()}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// Still open through b.
	if _, ok, err := b.Get(schemas.TableMeta, []byte("x")); err != nil || !ok {
		t.Fatalf("Get through the remaining handle: %v %v", ok, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// Counted (what Identify asks before it recounts a minute) finds a minute
// by any of its languages, and only that minute: not the one before or
// after, whose rows sort beside it.
func TestIdentitiesCounted(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Write([]schemas.Cell{
		schemas.FrequencyRow{Minute: "202611011205", Lang: "und", Count: 1}.Cell(),
		schemas.FrequencyRow{Minute: "202611011259", Lang: "en", Count: 2}.Cell(),
	}); err != nil {
		t.Fatal(err)
	}
	ids := st.Identities()
	for minute, want := range map[string]bool{
		"202611011204": false,
		"202611011205": true,
		"202611011206": false,
		"202611011259": true, // the next minute is in the next hour
		"202611011300": false,
	} {
		got, err := ids.Counted(context.Background(), minute)
		if err != nil || got != want {
			t.Errorf("Counted(%s) = %v, %v; want %v", minute, got, err, want)
		}
	}
	if _, err := ids.Counted(context.Background(), "2026-11-01"); err == nil {
		t.Error("Counted of a malformed minute: no error")
	}
}
