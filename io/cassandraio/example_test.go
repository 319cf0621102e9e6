package cassandraio_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/schemas"
)

// Write cells with a Writer and read a table back, here against the
// in-process CQL server; with a cluster, give its hosts instead.
func Example() {
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	ctx := context.Background()
	cfg := cassandraio.DefaultConfig(srv.Addr())
	cfg.Consistency = "ONE"
	if err := cassandraio.ApplySchema(ctx, cfg, schemas.ReplicationOptions{}); err != nil {
		log.Fatal(err)
	}
	w, err := cassandraio.NewWriter(cfg)
	if err != nil {
		log.Fatal(err)
	}
	cells := []schemas.Cell{
		schemas.FrequencyRow{Minute: "201810102019", Lang: "en", Count: 42}.Cell(),
		schemas.FrequencyRow{Minute: "201810102019", Lang: "ja", Count: 7}.Cell(),
		schemas.FrequencyRow{Minute: "201810102018", Lang: "en", Count: 40}.Cell(),
	}
	if err := w.Write(ctx, cells); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(ctx); err != nil { // flushes: every row is acknowledged
		log.Fatal(err)
	}
	fmt.Printf("%d rows in %d request(s)\n", w.Stats().Rows, w.Stats().Requests)

	r, err := cassandraio.NewReader(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	err = r.Scan(ctx, schemas.TableFrequency, nil, nil, func(key, value []byte) error {
		fmt.Printf("%s = %s\n", key, value)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// 3 rows in 1 request(s)
	// 201810102018en = 40
	// 201810102019en = 42
	// 201810102019ja = 7
}
