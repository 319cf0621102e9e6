package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/schemas"
)

func runDump(args []string) error {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	store := fs.String("store", "", "directory of the embedded store")
	table := fs.String("table", "", "table to dump: raw, terms, frequency, geo, deadletter or meta")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, ok := schemas.TableByName(*table)
	if !ok {
		return fmt.Errorf("--table %q: want raw, terms, frequency, geo, deadletter or meta", *table)
	}
	if *store == "" {
		return fmt.Errorf("no store: pass --store DIR")
	}
	if _, err := os.Stat(*store); err != nil {
		return fmt.Errorf("store %s does not exist: run tweetindex index first", *store)
	}
	st, err := storeio.Open(*store)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = pipelines.Dump(context.Background(), st, t, os.Stdout)
	return err
}
