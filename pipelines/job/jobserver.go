package job

import (
	"context"
	"flag"
	"fmt"
	"net"
	"strings"
	"time"
)

// jobServerWait is how long CheckRunner keeps trying to connect to a
// job server before it gives up. Beam's own dial blocks for two minutes
// and then fails with a multi-line "context deadline exceeded".
const jobServerWait = 5 * time.Second

// portableRunners are the runners that submit the job to a job server at
// --endpoint (runners registered by beamx; the names are case-sensitive).
var portableRunners = map[string]bool{
	"universal": true, "portable": true, "PortableRunner": true,
	"flink": true, "FlinkRunner": true,
	"spark": true, "SparkRunner": true,
}

// knownRunners are the other runners beamx registers but the legacy
// direct runner, which checkJobServer refuses.
var knownRunners = map[string]bool{
	"": true, "prism": true, "PrismRunner": true,
	"dataflow": true, "DataflowRunner": true, "dot": true,
}

// CheckRunner checks Beam's runner flags before a run, so that a
// mistyped runner, a job server that is not running or a mode the command
// cannot account for fails at once, in one line, saying what to do.
func CheckRunner(ctx context.Context) error {
	for _, name := range []string{"async", "dry_run", "template_location"} {
		if v := flagString(name); v != "" && v != "false" {
			return fmt.Errorf("--%s is not supported: tweetindex waits for the job to finish, reads its counts back and records the run (start the command in the background or from a scheduler instead: runners/schedule; on Dataflow use the Flex Template in runners/dataflow)", name)
		}
	}
	return checkJobServer(ctx, flagString("runner"), flagString("endpoint"), jobServerWait)
}

// checkJobServer checks runner and endpoint; it dials endpoint until it
// accepts a TCP connection or wait has passed (at least once).
func checkJobServer(ctx context.Context, runner, endpoint string, wait time.Duration) error {
	switch {
	case portableRunners[runner]:
		if endpoint == "" {
			return fmt.Errorf("--runner=%s needs --endpoint=HOST:PORT, the address of a running job server (see runners/README.md)", runner)
		}
	case runner == "" || runner == "prism" || runner == "PrismRunner":
		if endpoint == "" {
			return nil // prism starts in this process
		}
	case runner == "direct" || runner == "DirectRunner":
		// Beam's legacy direct runner has no state and no timers: the
		// first stateful DoFn (deduplication) panics on a nil state.
		return fmt.Errorf("--runner=%s (Beam's legacy direct runner) has no state or timers, which deduplication and counting need: leave --runner out to run on prism in this process", runner)
	case knownRunners[runner]:
		return nil // Dataflow, dot: no job server at --endpoint
	default:
		return fmt.Errorf("unknown --runner=%s: want prism (the default, in process), universal (a job server at --endpoint), flink, spark or dataflow (names are case-sensitive)", runner)
	}
	if _, _, err := net.SplitHostPort(endpoint); err != nil {
		return fmt.Errorf("--endpoint=%s: want HOST:PORT of the job server (%v)", endpoint, err)
	}
	deadline := time.Now().Add(wait)
	d := net.Dialer{Timeout: time.Second}
	for {
		conn, err := d.DialContext(ctx, "tcp", endpoint)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("cannot reach job server %s: is it running? Start one (runners/README.md) or drop --runner/--endpoint to run in process (%v)", endpoint, oneLine(err))
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// runError is the error of a failed run. When the job server the run was
// submitted to no longer answers, it says so first: Beam's own error then
// reads "failed to get metrics", over several lines.
func runError(ctx context.Context, err error) *RunError {
	return runErrorFor(ctx, flagString("runner"), flagString("endpoint"), err)
}

func runErrorFor(ctx context.Context, runner, endpoint string, err error) *RunError {
	failure := explainFailure(err)
	if endpoint != "" && (portableRunners[runner] || runner == "" || runner == "prism" || runner == "PrismRunner") {
		if checkJobServer(ctx, runner, endpoint, 0) != nil {
			failure.Step = ""
			failure.Cause = "lost the job server " + endpoint + " during the run"
			failure.Hint = "is it still running? the runner said: " + oneLine(err)
		}
	}
	return failure
}

// flagString returns the value of a flag of the command line's flag set,
// or "" if it is not defined.
func flagString(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// oneLine joins the lines of an error's text.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
