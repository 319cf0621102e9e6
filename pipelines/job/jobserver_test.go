package job

import (
	"context"
	"errors"
	"flag"
	"net"
	"strings"
	"testing"
	"time"
)

// TestCheckJobServer: a wrong runner name, a missing endpoint or a job
// server that does not answer fail at once, in one line.
func TestCheckJobServer(t *testing.T) {
	t.Parallel() // waits for timeouts
	ctx := context.Background()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	up := lis.Addr().String()
	down := closedPort(t)

	for _, c := range []struct {
		runner, endpoint string
		want             string // "" for no error, else a substring of the error
	}{
		{"", "", ""},
		{"prism", "", ""},
		{"dataflow", "", ""},
		{"direct", "", "--runner=direct (Beam's legacy direct runner) has no state or timers"},
		{"DirectRunner", "", "--runner=DirectRunner (Beam's legacy direct runner) has no state or timers"},
		{"universal", up, ""},
		{"prism", up, ""},
		{"flink", up, ""},
		{"Flink", up, "unknown --runner=Flink"},
		{"universal", "", "--runner=universal needs --endpoint=HOST:PORT"},
		{"universal", "localhost", "want HOST:PORT"},
		{"universal", down, "cannot reach job server " + down + ": is it running?"},
		{"prism", down, "cannot reach job server"},
	} {
		start := time.Now()
		err := checkJobServer(ctx, c.runner, c.endpoint, 500*time.Millisecond)
		took := time.Since(start)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("runner %q endpoint %q: %v", c.runner, c.endpoint, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("runner %q endpoint %q: error %v, want one containing %q", c.runner, c.endpoint, err, c.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("runner %q endpoint %q: error is not one line: %q", c.runner, c.endpoint, err)
		case took > 2*time.Second:
			t.Errorf("runner %q endpoint %q: check took %v", c.runner, c.endpoint, took)
		}
	}
}

// TestCheckJobServerWaitsForStart: a job server that starts listening a
// moment after the check begins is found.
func TestCheckJobServerWaitsForStart(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	done := make(chan struct{})
	stopped := make(chan struct{})
	t.Cleanup(func() { close(done); <-stopped })
	go func() {
		defer close(stopped)
		time.Sleep(400 * time.Millisecond)
		lis, err := net.Listen("tcp", addr)
		if err != nil {
			return // the port was taken in between: the check fails below
		}
		<-done
		lis.Close()
	}()
	if err := checkJobServer(context.Background(), "universal", addr, 4*time.Second); err != nil {
		t.Fatal(err)
	}
}

// closedPort returns a local address nothing listens on (a port the
// kernel just handed out and that was closed again).
func closedPort(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// TestRunErrorLostJobServer: a run whose job server went away says so
// first, in one line; other failures keep Beam's error.
func TestRunErrorLostJobServer(t *testing.T) {
	beamErr := errors.New("failed to get metrics\n\tcaused by:\nrpc error: code = Unavailable")
	down := closedPort(t)
	var err error = runErrorFor(context.Background(), "universal", down, beamErr)
	want := "pipeline failed: lost the job server " + down + " during the run (is it still running? the runner said: failed to get metrics caused by: rpc error: code = Unavailable)"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	err = runErrorFor(context.Background(), "universal", lis.Addr().String(), beamErr)
	if !errors.Is(err, beamErr) || err.Error() != "pipeline failed: failed to get metrics" {
		t.Errorf("job server up: got %q, want Beam's error wrapped", err)
	}
}

// TestCheckRunnerRejectsDetachedRuns: --async (which makes the universal
// runner's result panic in Metrics) and --dry_run (which recorded a run
// that did not happen) are refused before anything runs.
func TestCheckRunnerRejectsDetachedRuns(t *testing.T) {
	for _, name := range []string{"async", "dry_run"} {
		f := flag.Lookup(name)
		if f == nil {
			t.Fatalf("Beam flag --%s is not defined", name)
		}
		old := f.Value.String()
		if err := flag.Set(name, "true"); err != nil {
			t.Fatal(err)
		}
		err := CheckRunner(context.Background())
		flag.Set(name, old)
		if err == nil || !strings.HasPrefix(err.Error(), "--"+name+" is not supported") {
			t.Errorf("--%s: got %v", name, err)
		}
	}
}
