package archiveio_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tweetindex/tweetindex/io/archiveio"
	"github.com/tweetindex/tweetindex/schemas"
)

func Example() {
	dir, err := os.MkdirTemp("", "archiveio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A gzipped JSON lines file with a keep-alive (blank line).
	f, err := os.Create(filepath.Join(dir, "19.json.gz"))
	if err != nil {
		log.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	fmt.Fprint(zw, `{"id_str":"1","text":"hello"}`+"\n\n"+`{"delete":{"status":{"id_str":"1"}}}`+"\n")
	zw.Close()
	f.Close()

	files, err := archiveio.Expand(filepath.Join(dir, "*.json.gz"))
	if err != nil {
		log.Fatal(err)
	}
	for _, path := range files {
		st, err := archiveio.ReadFile(context.Background(), path, archiveio.Options{}, func(batch []schemas.Record) error {
			for _, r := range batch {
				fmt.Printf("%s:%d %q\n", filepath.Base(r.Origin.Source), r.Origin.Line, r.Data)
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d records, %d faults\n", st.Records, st.Faults)
	}
	// Output:
	// 19.json.gz:1 "{\"id_str\":\"1\",\"text\":\"hello\"}"
	// 19.json.gz:2 ""
	// 19.json.gz:3 "{\"delete\":{\"status\":{\"id_str\":\"1\"}}}"
	// 3 records, 0 faults
}
