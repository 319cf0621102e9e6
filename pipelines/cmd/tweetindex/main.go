// Command tweetindex indexes tweets into four tables (raw tweets, a term
// index, tweet counts per minute per language, a geotemporal index), in an
// embedded store or in Cassandra, and answers questions from them:
//
//	tweetindex index    (--input 'GLOB' | --kafka BROKERS --topic T ...) (--store DIR | --cassandra HOSTS ...) [Beam flags]
//	tweetindex backfill (--root DIR | --kafka BROKERS --topic T) --from T1 --to T2 (--store DIR | --cassandra HOSTS ...)
//	tweetindex backfill status (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--by minute|hour|day]
//	tweetindex query    QUESTION (--store DIR | --cassandra HOSTS ...) [--from T1] [--to T2] [--lang L]
//	tweetindex dump     (--store DIR | --cassandra HOSTS) --table raw|terms|frequency|geo|deadletter|meta
//	tweetindex schema   print|apply [--cassandra HOSTS] [--keyspace K] [--replication R]
//
// 'tweetindex COMMAND --help' lists the flags of a command; README.md has
// the whole reference.
//
// Beam flags (--runner, --endpoint, --environment_type, ...) pass through to
// the Beam Go SDK; the default runner is prism, in process.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

const usage = `tweetindex indexes tweets into raw, term, frequency and geotemporal tables.

Usage:
  tweetindex index (--input 'GLOB' | --kafka BROKERS --topic T) (--store DIR | --cassandra HOSTS) [--summary FILE] [Beam flags]
  tweetindex backfill (--root DIR | --kafka BROKERS --topic T) --from T1 --to T2 (--store DIR | --cassandra HOSTS)
  tweetindex backfill status (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--by minute|hour|day]
  tweetindex query count|count-geo|series|count-term|geo|tweets|terms|export|users|bench (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--lang L] [--format table|jsonl|csv]
  tweetindex dump  (--store DIR | --cassandra HOSTS) --table raw|terms|frequency|geo|deadletter|meta
  tweetindex schema print|apply [--cassandra HOSTS] [--keyspace K] [--replication R]

Run 'tweetindex COMMAND --help' for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	if strings.HasPrefix(cmd, "-") {
		// Started by a runner as a Beam worker (--worker ...): Init runs
		// the SDK harness and exits.
		flag.Parse()
		beam.Init()
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd {
	case "index":
		err = runIndex(args)
	case "backfill":
		err = runBackfill(args)
	case "query":
		err = runQuery(args)
	case "dump":
		err = runDump(args)
	case "schema":
		err = runSchema(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return
	default:
		err = fmt.Errorf("unknown command %q (want index, backfill, query, dump or schema)", cmd)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tweetindex %s: %v\n", cmd, err)
		printDetail(os.Stderr, err)
		os.Exit(1)
	}
}
