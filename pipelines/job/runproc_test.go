package job

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcessGone: a running record of this host whose process has exited
// (or whose pid now belongs to a process started later) is gone; a live
// one, a finished one and one from another host are not.
func TestProcessGone(t *testing.T) {
	self := RunRecord{Status: RunRunning}
	stampProcess(&self)
	if self.Host == "" || self.PID != os.Getpid() {
		t.Fatalf("stamped %+v", self)
	}
	if processGone(self) {
		t.Error("this live process is reported gone")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	dead := self
	dead.PID = cmd.Process.Pid
	dead.Process = ""
	if !processGone(dead) {
		t.Errorf("exited pid %d not reported gone", dead.PID)
	}
	if _, ok := processStart(os.Getpid()); ok {
		reused := self
		reused.Process += "0" // same pid, another start
		if !processGone(reused) {
			t.Error("a pid reused by a later process is not reported gone")
		}
	}
	for _, r := range []RunRecord{
		func() RunRecord { r := dead; r.Host = "another-host"; return r }(),
		func() RunRecord { r := dead; r.Status = RunSucceeded; return r }(),
		func() RunRecord { r := dead; r.PID = 0; return r }(), // a record written before pids were
	} {
		if processGone(r) {
			t.Errorf("%+v reported gone", r)
		}
	}
}
