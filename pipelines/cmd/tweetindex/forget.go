package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tweetindex/tweetindex/pipelines/maintain"
)

const forgetSynopsis = `tweetindex forget --ids FILE (--store DIR | --cassandra HOSTS [--keyspace K]) [--format table|jsonl]`

const forgetAbout = `forget deletes tweets by id, as a compliance delete in a run does: the
stored tweet's rows in every table are deleted, a tombstone in the
identity table keeps a later run over older files from storing it again
(also for an id not stored yet), and the tweet counts of the minutes
touched are recounted from the raw table. Forgetting an id twice changes
nothing.

FILE (or - for standard input) holds one id a line: a decimal id, or a
JSON object with "id_str" or "id", such as a twarc2 compliance-job result
({"id":"...","action":"delete",...}), a tweet, or a v1.1 delete notice.
Objects whose "action" is not "delete" (scrub_geo, protect, ...) are
counted, not applied; lines that name no id are counted as bad and the
first ones listed on stderr. Blank lines are skipped.

The summary says how many ids were read, forgotten (a stored tweet was
removed), already absent (deleted before, or never stored) and how many
lines were bad. Exit codes: 0 done (bad lines included), 1 the tables could
not be read or written, 2 usage error.`

func runForget(args []string) error {
	c := newCommand("forget", forgetSynopsis, forgetAbout)
	fs := c.fs
	var sink sinkFlags
	sink.register(fs, false)
	idsFile := fs.String("ids", "", "file of tweet ids to forget, one a line (decimal, or JSON lines with \"id\"/\"id_str\"); - for standard input: required")
	format := fs.String("format", "table", "summary: table (for people) or jsonl (one JSON object)")
	if err := c.parseNoArgs(args); err != nil {
		return err
	}
	if *idsFile == "" {
		return usagef("no ids: pass --ids FILE (one tweet id a line; - for standard input)")
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := sink.checkRead(); err != nil {
		return asUsage(err)
	}
	var in io.Reader = os.Stdin
	name := "stdin"
	if *idsFile != "-" {
		name = *idsFile
		f, err := os.Open(*idsFile)
		if err != nil {
			return fmt.Errorf("--ids: %w", err)
		}
		defer f.Close()
		in = f
	}
	list, err := maintain.ReadIDList(in)
	if err != nil {
		return err
	}
	const shown = 10
	for i, b := range list.Bad {
		if i == shown {
			fmt.Fprintf(os.Stderr, "forget: ... and %d more bad lines\n", len(list.Bad)-shown)
			break
		}
		fmt.Fprintf(os.Stderr, "forget: %s:%d: %s\n", name, b.Line, b.Reason)
	}
	s, err := sink.open(0)
	if err != nil {
		return err
	}
	defer s.Close()
	sum, err := maintain.Forget(context.Background(), s, list)
	if err != nil {
		return err
	}
	if *format == "jsonl" {
		return json.NewEncoder(os.Stdout).Encode(sum)
	}
	printForget(os.Stdout, sum)
	return nil
}

// printForget writes forget's summary for people.
func printForget(w io.Writer, s maintain.ForgetSummary) {
	fmt.Fprintf(w, "ids read %d (%d distinct): forgotten %d, already absent %d (%d deleted before, %d never stored: tombstoned)\n",
		s.Read, s.Distinct, s.Forgotten, s.AlreadyAbsent, s.AlreadyDeleted, s.AlreadyAbsent-s.AlreadyDeleted)
	if s.NotDeletes > 0 {
		fmt.Fprintf(w, "%d compliance events other than delete (not applied)\n", s.NotDeletes)
	}
	fmt.Fprintf(w, "bad lines %d; rows deleted %d; minutes recounted %d; %.1f s\n", s.BadLines, s.RowsDeleted, s.Recounted, s.Seconds)
}
