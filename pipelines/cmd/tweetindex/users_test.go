package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/job"
	"github.com/tweetindex/tweetindex/schemas"
)

// sampleStoreWithout indexes the sample into a new store and removes
// every row of table and the metadata row param from it, as in a store
// indexed before the table existed; it returns the store and the rows
// removed (param's aside).
func sampleStoreWithout(t *testing.T, table schemas.Table, param string) (string, int) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := job.Run(context.Background(), pipelines.Config{Input: "../../../testdata/sample/*", Store: dir}); err != nil {
		t.Fatal(err)
	}
	st, err := storeio.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	dels := []schemas.Cell{{Table: schemas.TableMeta, Key: []byte(param), Delete: true}}
	err = st.Scan(context.Background(), table, nil, nil, func(key, _ []byte) error {
		dels = append(dels, schemas.Cell{Table: table, Key: bytes.Clone(key), Delete: true})
		return nil
	})
	if err == nil {
		err = st.Write(dels)
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir, len(dels) - 1
}

// TestUsersOnAStoreWithoutAuthors indexes the sample into a store and
// removes its authors rows and param/authors, as a store indexed before the
// authors table existed: users and users --top give the answers of the
// sample store (which reads its authors table, silently) and say on stderr
// that they read the stored tweets instead.
func TestUsersOnAStoreWithoutAuthors(t *testing.T) {
	store, _ := indexedSample(t)
	old, removed := sampleStoreWithout(t, schemas.TableAuthors, schemas.AuthorsParam)
	if removed < 100 {
		t.Fatalf("the sample store held %d authors rows: want one per tweet", removed)
	}
	for _, args := range [][]string{{"--top", "1000"}, {}} {
		want, wantErr := ask(t, append([]string{"users", "--store", store, "--format", "csv"}, args...)...)
		got, gotErr := ask(t, append([]string{"users", "--store", old, "--format", "csv"}, args...)...)
		if got != want || strings.Count(want, "\n") < 10 {
			t.Errorf("users %v without the authors table:\n%s\nwith it:\n%s", args, got, want)
		}
		if strings.Contains(wantErr, "authors table") || !strings.Contains(gotErr, "indexed before the authors table existed") {
			t.Errorf("users %v: stderr %q with the authors table, %q without: want a note without it only", args, wantErr, gotErr)
		}
	}
}
