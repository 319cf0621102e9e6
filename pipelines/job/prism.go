package job

import (
	"errors"
	"flag"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"

	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/transforms/flow"
)

// prismNoSplit is the experiment that stops prism from splitting bundles
// that are in progress.
//
// Prism (Beam v2.77) splits a slow bundle of any stage, stateful ones
// included, and hands the residual elements to a new bundle at once,
// releasing their keys (engine.stageState.splitBundle) while the primary
// bundle's state writes are not yet persisted. A second bundle of the same
// key then reads stale state: DedupFn let about one in a thousand
// duplicates through when the same archive was read under two names. With
// this experiment prism never splits a running bundle; the Kafka read
// checkpoints by itself (ProcessContinuation) and does not need it. Other
// runners ignore the experiment.
const prismNoSplit = "prism_disable_sdf_split"

// tuneForRunner prepares a run for the runner chosen by Beam's flags: on
// every runner, the prismNoSplit experiment; when the SDK worker runs in
// this process (prism, the default; any runner with LOOPBACK workers),
// local flow control (see flow.EnableLocalFlowControl).
func tuneForRunner() {
	withSafeStateExperiment()
	if workerInProcess() {
		flow.EnableLocalFlowControl()
	}
}

// LocalShards is the number of dedup keys a day (pipelines.Config.Shards) when it is
// not given and the workers run in this process: prism's cost is per
// bundle, and fewer keys make fewer, larger bundles. 1 M tweets over 30
// days: 51.7-59.3 s with 16 keys a day (4 runs), 45.5-50.6 s with 8 (2),
// 48.3-49.9 s with 4 (3); over 1 hour 55.1 s with 16, 47.7 s with 4.
// Distributed runners keep transforms.DefaultShards: the keys a day are
// the parallelism of the dedup stage and of the table writes fused after
// it.
const LocalShards = 8

// workerInProcess reports whether the SDK worker runs in this process.
func workerInProcess() bool {
	if runnerInProcess() {
		return true
	}
	return beamFlag("environment_type") == "loopback"
}

// runnerInProcess reports whether the runner is prism started in this
// process (no --endpoint) with its workers here too (LOOPBACK, the
// default): the run's process is the job's only worker, and a failed
// bundle fails the job (prism v2.77 retries none).
func runnerInProcess() bool {
	env := beamFlag("environment_type")
	switch beamFlag("runner") {
	case "", "prism", "prismrunner":
		// Without --endpoint, prism starts in this process and makes the
		// workers LOOPBACK unless --environment_type says otherwise.
		endpoint := beamFlag("endpoint")
		if p, _ := inProcessPrism.Load().(string); p != "" && endpoint == p {
			endpoint = ""
		}
		return endpoint == "" && (env == "" || env == "loopback")
	}
	return false
}

// inProcessPrism is the endpoint of the job server that prism started in
// this process for its first run: prism leaves it in --endpoint, and
// --environment_type=loopback, for the runs after it, which go to the
// same server in this process (rememberInProcessPrism).
var inProcessPrism atomic.Value // string

// rememberInProcessPrism records the endpoint prism set during a run that
// had none (before: --endpoint before the run).
func rememberInProcessPrism(before string) {
	if after := beamFlag("endpoint"); before == "" && after != "" {
		inProcessPrism.Store(after)
	}
}

// beamFlag returns the value of Beam's flag name, lower case ("" if it
// is not defined).
func beamFlag(name string) string {
	if f := flag.Lookup(name); f != nil {
		return strings.ToLower(f.Value.String())
	}
	return ""
}

// withSafeStateExperiment adds prismNoSplit to the job's experiments.
func withSafeStateExperiment() {
	exps := jobopts.GetExperiments()
	if slices.Contains(exps, prismNoSplit) {
		return
	}
	*jobopts.Experiments = strings.Join(append(exps, prismNoSplit), ",")
}

// errStoreNeedsLocalWorkers refuses the embedded store when the SDK workers
// run in other processes.
var errStoreNeedsLocalWorkers = errors.New("--store: the embedded store is a directory that one process at a time can open, and the workers of this run are other processes (" +
	"--environment_type other than LOOPBACK, or a cluster runner): use --cassandra HOSTS, or --environment_type=LOOPBACK")

// checkSinkForWorkers reports errStoreNeedsLocalWorkers for a run of cfg
// into the embedded store whose workers are not in this process: they would
// hold the store's lock, and the run's record could not be written.
func checkSinkForWorkers(cfg pipelines.Config) error {
	if cfg.Store != "" && !workerInProcess() {
		return errStoreNeedsLocalWorkers
	}
	return nil
}
