package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"

	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

const checkSynopsis = `tweetindex check (--store DIR | --cassandra HOSTS [--keyspace K]) [--repair] [--format table|jsonl]`

const checkAbout = `check reads every stored tweet and holds the other tables to it, as a
run would have written them from those tweets: each tweet's identity,
authors, term, geo and edge rows must be there with their values, every
such row must belong to a stored tweet, every identity row that names a
row key must name a stored tweet, each minute's count of each language
must be its stored tweets, and a tweet id must be stored once (and not at
all once deleted: its identity row a tombstone). It reads the raw table
once, looks up each row a tweet calls for, and reads every other table
once; on a store a stream is writing it reads the newest snapshot.

--repair writes the missing and wrong rows and the right counts back from
the stored tweets, deletes the rows of no stored tweet, and removes the
versions of an id beyond the one kept (the one its identity row names)
and those of a deleted id (it needs the store to itself). A damaged file
of the store ends the check in one line naming it: the tables cannot be
read past it.

Exit codes: 0 nothing wrong (or everything repaired), 1 problems found
(or the tables could not be read), 2 usage error.`

func runCheck(args []string) error {
	c := newCommand("check", checkSynopsis, checkAbout)
	fs := c.fs
	var sink sinkFlags
	sink.register(fs, false)
	repair := fs.Bool("repair", false, "write what is missing or wrong back from the stored tweets, and delete the rows of no stored tweet")
	format := fs.String("format", "table", "report: table (for people) or jsonl (one JSON object)")
	if err := c.parseNoArgs(args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := sink.checkRead(); err != nil {
		return asUsage(err)
	}
	open := sink.openForQuery
	if *repair {
		open = sink.openToWrite
	}
	s, err := open(0)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var write func(context.Context, []schemas.Cell) error
	if *repair {
		write = s.Write
	}
	rep, err := maintain.Check(ctx, s.Reader, write)
	if err != nil {
		return err
	}
	if *format == "jsonl" {
		if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
			return err
		}
	} else {
		printCheck(os.Stdout, rep)
	}
	if n := rep.Problems(); n > 0 && !*repair {
		return fmt.Errorf("%d problems found: tweetindex check --repair writes them back from the stored tweets", n)
	}
	return nil
}

// printCheck writes check's report for people.
func printCheck(w io.Writer, r maintain.CheckReport) {
	fmt.Fprintf(w, "%d stored tweets read in %.1f s\n", r.Tweets, r.Seconds)
	fmt.Fprintf(w, "%-10s %10s %8s %6s %8s %8s\n", "table", "rows", "missing", "wrong", "orphans", "versions")
	for _, name := range slices.Sorted(maps.Keys(r.Tables)) {
		t := r.Tables[name]
		fmt.Fprintf(w, "%-10s %10d %8d %6d %8d %8d\n", name, t.Rows, t.Missing, t.Wrong, t.Orphans, t.Versions)
	}
	for _, e := range r.Examples {
		fmt.Fprintln(w, "  "+e)
	}
	switch n := r.Problems(); {
	case n == 0:
		fmt.Fprintln(w, "no problems")
	case r.Repaired > 0:
		fmt.Fprintf(w, "%d problems, repaired: %d rows written or deleted\n", n, r.Repaired)
	default:
		fmt.Fprintf(w, "%d problems\n", n)
	}
}
