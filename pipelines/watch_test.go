package pipelines

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// TestReadFrequency reads the frequency table of a store into a snapshot.
func TestReadFrequency(t *testing.T) {
	st, err := storeio.Open(filepath.Join(tempDir(t), "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Write([]schemas.Cell{
		schemas.FrequencyRow{Minute: "202611011200", Lang: "en", Count: 7}.Cell(),
		schemas.FrequencyRow{Minute: "202611011200", Lang: "ja", Count: 2}.Cell(),
		schemas.FrequencyRow{Minute: "202611011203", Lang: "en", Count: 1}.Cell(),
	}); err != nil {
		t.Fatal(err)
	}
	snap, err := maintain.ReadFrequency(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Total("") != 10 || snap.Total("202611011200") != 9 || snap.Total("202611011201") != 0 || snap["202611011200"]["ja"] != 2 {
		t.Errorf("snapshot %v", snap)
	}
}
