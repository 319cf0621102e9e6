package job

import (
	"errors"
	"strings"
	"testing"
)

// prismFailure is a failed job's error as prism (Beam v2.77) returns it,
// shortened: the plan dump, then the failed DoFn and its error.
const prismFailure = "job job-001 failed:\n" +
	"bundle inst003 stage-003 failed:process bundle failed for instruction inst003 using plan stage-003 : while executing Up for Plan[stage-003]:\n" +
	"1: DataSource[S[stage-003_source@localhost:38833], i0] Out:10 Coder:W;cwv_ne4\n" +
	"10: SDF.ProcessSizedElementsAndRestrictions[archiveio.readFn] UID:10 Out:[9]\n" +
	"6: ParDo[storeio.WriteFn] Out:[] Sig: func(context.Context, []schemas.Cell) error, SideInputs: []\n" +
	"\tcaused by:\n" +
	"DoFn[UID:6, PID:e22, Name: github.com/tweetindex/tweetindex/io/storeio.WriteFn] failed:\n" +
	"open store /tmp/x: error opening database at \"/tmp/x\": mkdir /tmp/x: not a directory"

func TestExplainFailure(t *testing.T) {
	tests := []struct {
		name, err string
		want      string
	}{
		{
			name: "prism bundle failure",
			err:  prismFailure,
			want: `pipeline failed in storeio.WriteFn: open store /tmp/x: error opening database at "/tmp/x": mkdir /tmp/x: not a directory` +
				" (" + hints["storeio"] + ")",
		},
		{
			name: "dead Cassandra host",
			err:  "job failed:\nDoFn[UID:6, PID:e22, Name: github.com/tweetindex/tweetindex/io/cassandraio.WriteFn] failed:\ncassandraio: write: gocql: no hosts available in the pool",
			want: "pipeline failed in cassandraio.WriteFn: cassandraio: write: gocql: no hosts available in the pool (check that the hosts of --cassandra are up and reachable from every worker; writes were retried before the bundle failed)",
		},
		{
			name: "missing Cassandra table",
			err:  "job failed:\nDoFn[UID:6, PID:e22, Name: github.com/tweetindex/tweetindex/io/cassandraio.WriteFn] failed:\ncassandraio: prepare: unconfigured table raw_tweets",
			want: "pipeline failed in cassandraio.WriteFn: cassandraio: prepare: unconfigured table raw_tweets (check --keyspace; create the tables with: tweetindex schema apply)",
		},
		{
			name: "full disk",
			err:  "job failed:\nDoFn[UID:6, PID:e22, Name: github.com/tweetindex/tweetindex/io/storeio.WriteFn] failed:\nstoreio: store /s: storeio: spilling sorted cells: write /s/bulk-load/run-00582: no space left on device",
			want: "pipeline failed in storeio.WriteFn: storeio: store /s: storeio: spilling sorted cells: write /s/bulk-load/run-00582: no space left on device (free space on the filesystem named and run again; the next run removes the files this one spilled)",
		},
		{
			name: "no DoFn named",
			err:  "job job-002 failed:\nconnection to the job service lost",
			want: "pipeline failed: job job-002 failed:",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := errors.New(tc.err)
			e := explainFailure(base)
			if got := e.Error(); got != tc.want {
				t.Errorf("Error() = %q\nwant      %q", got, tc.want)
			}
			if strings.Contains(e.Error(), "\n") {
				t.Errorf("Error() has more than one line")
			}
			if !errors.Is(e, base) {
				t.Errorf("RunError does not unwrap to the runner's error")
			}
			if strings.Contains(e.Detail, "DataSource[") {
				t.Errorf("Detail keeps the plan dump:\n%s", e.Detail)
			}
		})
	}
}
