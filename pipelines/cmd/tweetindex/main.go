// Command tweetindex indexes tweets into four tables (raw tweets, a term
// index, tweet counts per minute per language, a geotemporal index), in an
// embedded store or in Cassandra, and answers questions from them:
//
//	tweetindex index    (--input 'GLOB' | --kafka BROKERS --topic T ...) (--store DIR | --cassandra HOSTS ...) [Beam flags]
//	tweetindex backfill (--root DIR | --kafka BROKERS --topic T) --from T1 --to T2 (--store DIR | --cassandra HOSTS ...)
//	tweetindex backfill status (--store DIR | --cassandra HOSTS) [--from T1] [--to T2] [--by minute|hour|day] [--format table|jsonl]
//	tweetindex query    QUESTION (--store DIR | --cassandra HOSTS ...) [--from T1] [--to T2] [--lang L]
//	tweetindex serve    (--store DIR | --cassandra HOSTS ...) [--addr 127.0.0.1:8080]
//	tweetindex dump     (--store DIR | --cassandra HOSTS) --table raw|terms|frequency|geo|deadletter|meta|identity|authors
//	tweetindex forget   --ids FILE (--store DIR | --cassandra HOSTS ...) [--format table|jsonl]
//	tweetindex schema   print|apply|copy [--cassandra HOSTS] [--keyspace K] [--replication R] [--from-keyspace K2]
//	tweetindex version
//
// 'tweetindex COMMAND --help' lists the flags of a command (Beam's behind
// --help-beam); README.md has the whole reference. Flags and arguments come
// in any order. Exit codes: 0 success (and help), 1 failure, 2 usage error,
// 3 backfill status found a range not covered.
//
// Beam flags (--runner, --endpoint, --environment_type, ...) pass through to
// the Beam Go SDK; the default runner is prism, in process.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/pipelines/job"
)

const usage = `tweetindex indexes tweets into raw, term, frequency and geotemporal tables,
in an embedded store or in Cassandra, and answers questions from them.

Usage:
  tweetindex COMMAND [flags]

Commands:
  index            index tweet files (--input) or a Kafka topic (--kafka)
  backfill         index exactly the tweets of a time range, from an archive or Kafka
  backfill status  which time ranges the recorded runs cover (exit 3 if any is not covered)
  query            answer one of the ten questions from the tables
  serve            answer the questions over HTTP (JSON, OpenAPI, metrics) and a web page
  dump             write a table as JSON lines
  forget           delete tweets by id (a compliance list) from the tables
  check            hold every table to the stored tweets (--repair: write them back)
  schema           print or apply the Cassandra schema, or copy a keyspace into it
  version          print the version
  help [COMMAND]   print the help of a command

Run 'tweetindex COMMAND --help' for the flags of a command; README.md has
the whole reference. Exit codes: 0 success, 1 failure, 2 usage error,
3 backfill status found ranges not covered.
`

// commands are the commands, for "help" and "did you mean".
var commands = []string{"index", "backfill", "query", "serve", "dump", "forget", "check", "schema", "version", "help"}

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain runs the command line args and returns the exit code.
func runMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, args := args[0], args[1:]
	switch {
	case cmd == "-h" || cmd == "-help" || cmd == "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case cmd == "-version" || cmd == "--version":
		cmd = "version"
	case isWorker(append([]string{cmd}, args...)):
		// Started by a runner as a Beam worker (--worker ...): Init runs
		// the SDK harness and exits.
		flag.Parse()
		beam.Init()
		fmt.Fprint(stderr, usage)
		return exitUsage
	case strings.HasPrefix(cmd, "-"):
		fmt.Fprintf(stderr, "tweetindex: %s before the command: name a command first (tweetindex COMMAND %s ...)\nRun 'tweetindex --help' for the commands.\n", cmd, cmd)
		return exitUsage
	}
	var err error
	switch cmd {
	case "index":
		err = runIndex(args)
	case "backfill":
		err = runBackfill(args)
	case "query":
		err = runQuery(args)
	case "serve":
		err = runServe(args)
	case "dump":
		err = runDump(args)
	case "forget":
		err = runForget(args)
	case "check":
		err = runCheck(args)
	case "schema":
		err = runSchema(args)
	case "version":
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "help":
		if len(args) == 0 {
			fmt.Fprint(stdout, usage)
			return 0
		}
		if !slices.Contains(commands, args[0]) {
			return exitCode(args[0], unknownCommand(args[0]), stderr) // points at tweetindex --help
		}
		return runMain(append(args, "--help"), stdout, stderr)
	default:
		err = unknownCommand(cmd)
	}
	return exitCode(cmd, err, stderr)
}

// exitCode reports err, if any, on stderr and returns the exit code.
func exitCode(cmd string, err error, stderr io.Writer) int {
	var ee exitError
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(stderr, "tweetindex %s: %s\n", cmd, ee.msg)
		}
		return ee.code
	case errors.As(err, &ue):
		if !slices.Contains(commands, cmd) {
			fmt.Fprintf(stderr, "tweetindex: %v\nRun 'tweetindex --help' for the commands.\n", err)
		} else {
			help := cmd
			if ue.help != "" {
				help = ue.help
			}
			fmt.Fprintf(stderr, "tweetindex %s: %v\nRun 'tweetindex %s --help' for usage.\n", cmd, err, help)
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "tweetindex %s: %v\n", cmd, err)
	printDetail(stderr, err)
	if !errors.As(err, new(*job.RunError)) && cassandraio.IsSchemaError(err.Error()) {
		// A run's failure carries its hint; a read before or without one does not.
		fmt.Fprintln(stderr, "(check --keyspace; create the tables with: tweetindex schema apply --cassandra HOSTS --keyspace K)")
	}
	return exitFailure
}

func unknownCommand(cmd string) error {
	msg := fmt.Sprintf("unknown command %q (want index, backfill, query, serve, dump, forget, schema or version)", cmd)
	if s := suggestWord(cmd, commands); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return usagef("%s", msg)
}

// isWorker reports whether the process was started as a Beam SDK worker.
func isWorker(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "worker" {
			return true
		}
	}
	return false
}

// buildVersion, when set at link time (make build: -X
// main.buildVersion=$(git describe --always --dirty)), names the build;
// it stands in for the VCS stamp that -buildvcs=false leaves out.
var buildVersion string

// versionLine says which build this is: the module version, the VCS
// revision and time it was built from, and the Go toolchain.
func versionLine() string {
	v := "tweetindex (unknown build)"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v = "tweetindex " + info.Main.Version
	if buildVersion != "" {
		v += " " + buildVersion
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		v += " commit " + rev[:min(12, len(rev))]
		if settings["vcs.modified"] == "true" {
			v += " (modified)"
		}
		if t := settings["vcs.time"]; t != "" {
			v += " of " + t
		}
	}
	return v + ", " + info.GoVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
}
