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

// TestIdentitiesCollide: Collide says, for each (id, row key), whether the
// store holds a tweet of another id under the row key: from the authors
// table when the store says every tweet has its authors row, from the raw
// table when it does not say so, and from what a bulk load holds but has
// not ingested (a tweet it took, a stored tweet it deleted) before the
// database. Identities reads a batch of ids, repeated and missing ones
// among them.
func TestIdentitiesCollide(t *testing.T) {
	k1 := schemas.NewRowKey(1793534400, []byte("one"))
	k2 := schemas.NewRowKey(1793534400, []byte("two"))
	k3 := schemas.NewRowKey(1793534460, []byte("three"))
	raw := func(id uint64, k schemas.RowKey) schemas.Cell {
		return schemas.RawRow{Key: k, ID: id, JSON: []byte(fmt.Sprintf(`{"id":%d}`, id))}.Cell()
	}
	author := func(id uint64, k schemas.RowKey) schemas.Cell {
		return schemas.AuthorRow{Key: k, ID: id, Lang: "en", ScreenName: "a"}.Cell()
	}
	param := schemas.MetaRow{Name: schemas.AuthorsParam, Value: schemas.AuthorsValue}.Cell()
	del := func(c schemas.Cell) schemas.Cell { return schemas.Cell{Table: c.Table, Key: c.Key, Delete: true} }
	rows := []schemas.IdentityRow{{ID: 1, Key: k1}, {ID: 2, Key: k1}, {ID: 3, Key: k2}, {ID: 4, Key: k3}}
	cases := []struct {
		name   string
		stored []schemas.Cell // written and closed first
		loaded []schemas.Cell // then written through a bulk load, not ingested
		want   []bool
	}{
		{"authors", []schemas.Cell{param, raw(1, k1), author(1, k1)}, nil, []bool{false, true, false, false}},
		// Read from the authors table: a raw row without its authors row
		// is not seen (the parameter promises there is none).
		{"authors table read", []schemas.Cell{param, raw(1, k1), raw(9, k2)}, nil, []bool{false, false, false, false}},
		{"raw without the parameter", []schemas.Cell{raw(1, k1), raw(9, k2)}, nil, []bool{false, true, true, false}},
		{"the load's tweet", []schemas.Cell{param, raw(1, k1), author(1, k1)}, []schemas.Cell{raw(8, k3), author(8, k3)}, []bool{false, true, false, true}},
		{"the load deleted the stored tweet", []schemas.Cell{param, raw(1, k1), author(1, k1)}, []schemas.Cell{del(raw(1, k1)), del(author(1, k1))}, []bool{false, false, false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Write(c.stored); err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			st, err = OpenBulk(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Write(c.loaded); err != nil {
				t.Fatal(err)
			}
			got, err := st.Identities().Collide(context.Background(), rows)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("Collide = %v, want %v", got, c.want)
			}
		})
	}

	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const last = ^uint64(0)
	if err := st.Write([]schemas.Cell{
		schemas.IdentityRow{ID: 5, Key: k1}.Cell(),
		schemas.IdentityRow{ID: 7, Deleted: true}.Cell(),
		schemas.IdentityRow{ID: last, Key: k2}.Cell(),
	}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Identities().Identities(context.Background(), []uint64{last, 6, 5, 7, 5})
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]schemas.IdentityRow{5: {ID: 5, Key: k1}, 7: {ID: 7, Deleted: true}, last: {ID: last, Key: k2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Identities = %v, want %v", got, want)
	}
}
