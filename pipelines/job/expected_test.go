package job

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

var (
	checkData    = flag.String("check.data", "", "TestStoreMatchesExpected: a directory of generated tweets (gen bench -out DIR), whose EXPECTED.json the store is checked against")
	checkStore   = flag.String("check.store", "", "TestStoreMatchesExpected: the --store the tweets of -check.data were indexed into")
	checkSummary = flag.String("check.summary", "", "TestStoreMatchesExpected: the --summary file of that run")
)

// TestStoreMatchesExpected compares a store and its run's summary with the
// generator's expectations (compareExpected, which make bench-scale also
// runs). Given -check.data, -check.store and -check.summary (make
// check-expected), it checks a store a user indexed generated tweets into;
// otherwise it indexes the committed sample and checks it against
// testdata/expected/sample.json.
func TestStoreMatchesExpected(t *testing.T) {
	store, expected := *checkStore, filepath.Join(*checkData, "EXPECTED.json")
	var sum Summary
	switch {
	case *checkData == "" && *checkStore == "" && *checkSummary == "":
		store, sum = indexSample(t)
		expected = sampleExpected(t)
	case *checkData == "" || *checkStore == "" || *checkSummary == "":
		t.Fatal("give all three of -check.data, -check.store and -check.summary, or none")
	default:
		raw, err := os.ReadFile(*checkSummary)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &sum); err != nil {
			t.Fatalf("%s: %v", *checkSummary, err)
		}
	}
	line, err := compareExpected(store, expected, sum)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(line)
	if *checkStore != "" {
		return
	}
	// The check finds a difference in the summary, and in a table.
	bad := sum
	bad.Duplicates++
	if _, err := compareExpected(store, expected, bad); err == nil {
		t.Error("a summary with one duplicate too many matches the expectations")
	}
	st, err := storeio.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	var first schemas.FrequencyRow
	err = st.Scan(context.Background(), schemas.TableFrequency, nil, nil, func(key, value []byte) error {
		first, err = schemas.DecodeFrequency(key, value)
		if err == nil {
			err = errStop
		}
		return err
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("reading the first frequency row: %v", err)
	}
	first.Count++
	if err := st.Write([]schemas.Cell{first.Cell()}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := compareExpected(store, expected, sum); err == nil || !strings.Contains(err.Error(), first.Minute+"/"+first.Lang) {
		t.Errorf("a frequency count one too high: %v, want an error naming %s/%s", err, first.Minute, first.Lang)
	}
}
