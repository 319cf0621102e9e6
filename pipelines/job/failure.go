package job

import (
	"regexp"
	"strings"

	"github.com/tweetindex/tweetindex/io/cassandraio"
)

// RunError is a failed run. Its Error is one line: the step that failed
// and the root cause, as the runner reported it. Detail holds the runner's
// whole report, for those who need it.
type RunError struct {
	// Step is the transform that failed (its DoFn, e.g. "storeio.WriteFn"),
	// empty if the runner did not say.
	Step string
	// Cause is the innermost error, the one that says what went wrong.
	Cause string
	// Hint says what to do, when the step is one of ours.
	Hint string
	// Detail is the runner's report, with its execution plans left out.
	Detail string
	// Err is the error the runner returned.
	Err error
}

// Error returns one line.
func (e *RunError) Error() string {
	var b strings.Builder
	b.WriteString("pipeline failed")
	if e.Step != "" {
		b.WriteString(" in " + e.Step)
	}
	b.WriteString(": " + e.Cause)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// Unwrap returns the runner's error.
func (e *RunError) Unwrap() error { return e.Err }

var (
	// failedDoFn is how the Go SDK names the DoFn whose error failed a
	// bundle: "DoFn[UID:6, PID:e22, Name: github.com/x/y/storeio.WriteFn] failed:".
	failedDoFn = regexp.MustCompile(`DoFn\[[^\]]*Name: ([^\]]+)\] failed:`)
	// planLine is a line of an execution plan dump: "10: SDF.Process...".
	planLine = regexp.MustCompile(`^\d+: `)
)

// hints say what to do when a step of ours fails, by the package of the
// failed DoFn.
var hints = map[string]string{
	"storeio":     "check --store: a directory this process can create and write, not open in another tweetindex process",
	"cassandraio": "check that the hosts of --cassandra are up and reachable from every worker; writes were retried before the bundle failed",
	"kafkaio":     "check --kafka, --topic and the broker's reachability",
	"archiveio":   "check the --input files",
}

// hintFor says what to check when a step of package pkg fails with cause:
// the package's hint, except that a Cassandra failure names the schema
// only when the schema is what is wrong, and a full disk says so.
func hintFor(pkg, cause string) string {
	switch {
	case pkg == "cassandraio" && cassandraio.IsSchemaError(cause):
		return "check --keyspace; create the tables with: tweetindex schema apply"
	case strings.Contains(cause, "no space left on device"):
		return "free space on the filesystem named and run again; the next run removes the files this one spilled"
	}
	return hints[pkg]
}

// explainFailure turns the runner's error into a RunError.
func explainFailure(err error) *RunError {
	msg := err.Error()
	e := &RunError{Err: err, Cause: firstLine(msg), Detail: withoutPlans(msg)}
	if m := failedDoFn.FindAllStringSubmatchIndex(msg, -1); len(m) > 0 {
		last := m[len(m)-1]
		full := msg[last[2]:last[3]]
		e.Step = full[strings.LastIndexByte(full, '/')+1:]
		if cause := strings.TrimSpace(msg[last[1]:]); cause != "" {
			e.Cause = firstLine(cause)
		}
		pkg, _, _ := strings.Cut(e.Step, ".")
		e.Hint = hintFor(pkg, e.Cause)
	}
	return e
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// withoutPlans drops the execution plan dumps from a runner's report.
func withoutPlans(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if planLine.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
