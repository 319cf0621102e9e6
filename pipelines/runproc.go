package pipelines

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/schemas"
)

// A run record names the process that runs it (RunRecord.Host, PID and
// Process), so that a run whose process was killed (kill -9, the OOM
// killer, a power cut) or crashed is not taken for a live one forever.
//
// The rule: a record still marked running whose Host is this machine's
// host name, and whose process is no longer there (no process with its pid,
// or one that started at another time or in another boot, as
// /proc/PID/stat and the boot id tell on Linux), is interrupted.
// ReadRunRecords reports such runs as interrupted (backfill status among
// others), and Run rewrites their records as interrupted before it starts.
// A run recorded on another host (a shared Cassandra keyspace) cannot be
// checked from here and stays running until a run on its host finds it.

// processIdentity is this process's host name and pid.
var processIdentity = sync.OnceValues(func() (string, int) {
	host, _ := os.Hostname()
	return host, os.Getpid()
})

// processStart returns a token that identifies the process pid among every
// process this machine has run: the boot id and the process's start time in
// clock ticks since boot. ok is false where /proc does not tell (not
// Linux), or when no process has that pid.
func processStart(pid int) (token string, ok bool) {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// Fields after the command name (in parentheses, which may hold
	// spaces): state is field 3, starttime field 22.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return "", false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 20 {
		return "", false
	}
	return string(bytes.TrimSpace(boot)) + "/" + string(fields[19]), true
}

// stampProcess records this process in rec.
func stampProcess(rec *RunRecord) {
	rec.Host, rec.PID = processIdentity()
	rec.Process, _ = processStart(rec.PID)
}

// processGone reports whether rec is marked running but its process, on
// this host, is gone.
func processGone(rec RunRecord) bool {
	host, _ := processIdentity()
	if rec.Status != RunRunning || rec.PID <= 0 || rec.Host == "" || rec.Host != host {
		return false
	}
	if rec.Process != "" {
		if _, ok := processStart(os.Getpid()); ok {
			now, alive := processStart(rec.PID)
			return !alive || now != rec.Process
		}
	}
	return pidGone(rec.PID)
}

// OnOtherHost reports whether rec was recorded by a process on another
// host than this one: whether that process still runs cannot be checked
// from here.
func (r RunRecord) OnOtherHost() bool {
	host, _ := processIdentity()
	return r.Host != "" && r.Host != host
}

// markGone turns rec, a run whose process is gone, into an interrupted run.
func markGone(rec *RunRecord) {
	rec.Status = RunInterrupted
	rec.Error = fmt.Sprintf("its process (pid %d on %s) is gone: killed or crashed before the run ended", rec.PID, rec.Host)
}

// recordDeadRuns rewrites as interrupted the records of runs marked
// running whose process is gone (see the rule above), in the sink s.
func recordDeadRuns(ctx context.Context, s *sink.Sink) error {
	runs, err := readRunRecords(ctx, s)
	var cells []schemas.Cell
	for _, r := range runs {
		if processGone(r) {
			markGone(&r)
			v, _ := json.Marshal(r)
			cells = append(cells, schemas.MetaRow{Name: r.name(), Value: v}.Cell())
		}
	}
	if err == nil && len(cells) > 0 {
		err = s.Write(ctx, cells)
	}
	return err
}
