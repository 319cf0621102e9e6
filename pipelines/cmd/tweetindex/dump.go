package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/schemas"
)

func runDump(args []string) error {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	var sink sinkFlags
	sink.register(fs, false)
	table := fs.String("table", "", "table to dump: raw, terms, frequency, geo, deadletter or meta")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: tweetindex dump (--store DIR | --cassandra HOSTS [--keyspace K]) --table raw|terms|frequency|geo|deadletter|meta\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, ok := schemas.TableByName(*table)
	if !ok {
		return fmt.Errorf("--table %q: want raw, terms, frequency, geo, deadletter or meta", *table)
	}
	tables, err := sink.open()
	if err != nil {
		return err
	}
	defer tables.Close()
	_, err = pipelines.Dump(context.Background(), tables, t, os.Stdout)
	return err
}
