package job

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
)

// TestBoundedRunLeavesStoreCompact: a bounded run into the embedded
// store (a bulk load, without a write-ahead log) leaves the store as the
// next opener wants it: no log bytes, at most a handful of first-level
// files (a query would otherwise compact the load's 50-odd files itself,
// reading through all of them meanwhile), and no tables left on disk that
// the compaction made obsolete.
func TestBoundedRunLeavesStoreCompact(t *testing.T) {
	dir := tempDir(t)
	input := filepath.Join(dir, "tweets.jsonl")
	writeVariedTweets(t, input, 20000)
	store := filepath.Join(dir, "store")
	if _, err := Run(context.Background(), pipelines.Config{Input: input, Store: store}); err != nil {
		t.Fatal(err)
	}
	s, err := storeio.Open(store) // the run's own handle: the process keeps it open
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sh := s.Shape()
	t.Logf("store after the run: %+v", sh)
	if sh.WALBytes != 0 {
		t.Errorf("%d bytes of write-ahead log left", sh.WALBytes)
	}
	if sh.L0Files > 3 {
		t.Errorf("%d first-level files left, want at most 3 (6 without the compaction at the end)", sh.L0Files)
	}
	var logs, tables int64
	entries, err := os.ReadDir(store)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(e.Name(), ".log"):
			logs += fi.Size()
		case strings.HasSuffix(e.Name(), ".sst"):
			tables += fi.Size()
		}
	}
	if logs != 0 {
		t.Errorf("log files hold %d bytes", logs)
	}
	if tables > sh.Bytes {
		t.Errorf("tables on disk %d bytes, live %d: obsolete tables left", tables, sh.Bytes)
	}
}

// writeVariedTweets writes n v1.1 tweets over a day, with texts drawn
// from a few thousand words, so that term rows spread over the key space.
func writeVariedTweets(t *testing.T, path string, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		words := make([]string, 12)
		for j := range words {
			words[j] = fmt.Sprintf("w%x", r.IntN(5000))
		}
		fmt.Fprintf(&b, `{"created_at":%q,"id_str":"%d","text":%q,"lang":"en","user":{"screen_name":"u%d","name":"user %d"}}`+"\n",
			base.Add(time.Duration(i)*86400*time.Second/time.Duration(n)).Format(time.RubyDate), 1e15+i, strings.Join(words, " "), i%997, i%997)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
