package job

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tweetindex/tweetindex/io/kafkaio/kafkatest"
)

// TestPortableJobServer submits the real command to a standalone prism job
// server, the path a Flink job server takes too (--runner=universal
// --endpoint=HOST:PORT), with LOOPBACK workers: the tables must equal an
// in-process run's cell for cell, and the summary, which the command reads
// back from the job server's metrics, must hold the sample's counts. It
// also checks the one-line error for a job server that is not running.
//
// It builds bin/prism and bin/tweetindex the way runners/local/README.md
// says (about 2 minutes cold, seconds once the build cache is warm).
func TestPortableJobServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full suite (make test) builds the prism job server and the command, submits to it and compares the tables with an in-process run's")
	}
	root := repoRoot(t)
	bin := tempDir(t)
	prism := filepath.Join(bin, "prism")
	tweetindex := filepath.Join(bin, "tweetindex")
	goBuild(t, root, prism, "github.com/apache/beam/sdks/v2/go/cmd/prism")
	goBuild(t, root, tweetindex, "./pipelines/cmd/tweetindex")
	input := filepath.Join(root, "testdata", "sample", "*")

	t.Run("unreachable", func(t *testing.T) {
		addr := closedPort(t)
		start := time.Now()
		stdout, stderr, err := runCommand(t, time.Minute, tweetindex, "index", "--input", input,
			"--store", filepath.Join(tempDir(t), "store"),
			"--runner=universal", "--endpoint="+addr, "--environment_type=LOOPBACK")
		took := time.Since(start)
		if err == nil {
			t.Fatalf("index against %s (nothing listens) succeeded:\n%s", addr, stdout)
		}
		// The error is one line, the last one (progress lines may come
		// before it), with no continuation lines (Beam's errors have them).
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		want := "tweetindex index: cannot reach job server " + addr + ": is it running?"
		if !strings.HasPrefix(last, want) {
			t.Errorf("last line of stderr:\n%s\nwant it to start with:\n%s\nstderr:\n%s", last, want, stderr)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "\t") || strings.Contains(l, "caused by") {
				t.Errorf("stderr has a continuation line %q:\n%s", l, stderr)
				break
			}
		}
		if took > 30*time.Second {
			t.Errorf("failing took %v", took)
		}
		t.Logf("%s (after %v)", last, took.Round(time.Millisecond))
	})

	t.Run("loopback", func(t *testing.T) {
		endpoint := startPrism(t, prism)
		dir := tempDir(t)
		store := filepath.Join(dir, "store")
		summaryPath := filepath.Join(dir, "summary.json")
		start := time.Now()
		stdout, stderr, err := runCommand(t, 5*time.Minute, tweetindex, "index", "--input", input,
			"--store", store, "--summary", summaryPath,
			"--runner=universal", "--endpoint="+endpoint, "--environment_type=LOOPBACK")
		if err != nil {
			t.Fatalf("index on the job server at %s: %v\nstdout:\n%s\nstderr:\n%s", endpoint, err, stdout, stderr)
		}
		t.Logf("portable run: %v\n%s", time.Since(start).Round(time.Millisecond), stdout)

		// The job ran on the job server, not in the command's process.
		jobs := jobsOn(t, endpoint)
		if len(jobs) != 1 || jobs[0].GetState() != jobpb.JobState_DONE {
			t.Errorf("jobs on the job server: %v, want one in state DONE", jobs)
		}

		// The summary: counters read back from the job server's metrics.
		raw, err := os.ReadFile(summaryPath)
		if err != nil {
			t.Fatal(err)
		}
		var sum Summary
		if err := json.Unmarshal(raw, &sum); err != nil {
			t.Fatal(err)
		}
		exp := loadExpected(t)
		got := fmt.Sprint(sum.Read, sum.Indexed, sum.Duplicates, sum.Skipped, sum.DeadLettered)
		want := fmt.Sprint(exp.Read, exp.Indexed, exp.Duplicates, exp.Skipped, exp.DeadLettered)
		if got != want {
			t.Errorf("summary read, indexed, duplicates, skipped, dead_lettered = %s; the sample has %s\n%s", got, want, raw)
		}
		for table, n := range exp.Rows {
			if sum.Rows[table] != n {
				t.Errorf("summary: %d rows written to %s, the sample has %d", sum.Rows[table], table, n)
			}
		}

		// The tables: cell for cell those of an in-process run.
		inProcess, _ := indexSample(t)
		diffTables(t, dumpStore(t, inProcess), dumpStore(t, store), "in process", "job server")

		// A Kafka read that commits after the sinks wrote: its
		// acknowledgements and commit stage run on the job server too,
		// and commit every partition's end.
		const topic = "tweets"
		addr := kafkatest.StartBroker(t, map[string]int{topic: streamPartitions})
		produceRecords(t, addr, topic, sampleRecords(t), 0)
		ends, err := partitionEnds(addr, topic)
		if err != nil {
			t.Fatal(err)
		}
		kstore := filepath.Join(dir, "kafka-store")
		stdout, stderr, err = runCommand(t, 5*time.Minute, tweetindex, "index", "--kafka", addr, "--topic", topic,
			"--group", "g", "--commit", "--stop", "latest", "--store", kstore,
			"--runner=universal", "--endpoint="+endpoint, "--environment_type=LOOPBACK")
		if err != nil {
			t.Fatalf("index --kafka --commit on the job server at %s: %v\nstdout:\n%s\nstderr:\n%s", endpoint, err, stdout, stderr)
		}
		committed, err := committedOffsets(context.Background(), addr, "g", topic)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(committed) != fmt.Sprint(ends) {
			t.Errorf("job server run with --commit: offsets committed %v, want the partitions' ends %v", committed, ends)
		}
		compareWithFiles(t, dumpStore(t, kstore), "kafka on the job server")
	})

	t.Run("worker pool", func(t *testing.T) {
		// Workers in other processes, as on Flink: the Go SDK's own worker
		// pool (its boot program with --worker_pool, which listens on the
		// fixed port 50000 and starts a worker process per request) and
		// an EXTERNAL environment. The input is relative to the launcher's
		// directory, which is not the workers'.
		if ln, err := net.Listen("tcp", "localhost:50000"); err != nil {
			t.Skipf("port 50000, where the Go SDK's worker pool listens, is in use: %v", err)
		} else {
			ln.Close()
		}
		boot := filepath.Join(bin, "boot")
		goBuild(t, root, boot, "github.com/apache/beam/sdks/v2/go/container")
		startWorkerPool(t, boot)
		endpoint := startPrism(t, prism)
		external := []string{"--runner=universal", "--endpoint=" + endpoint,
			"--environment_type=EXTERNAL", "--environment_config=localhost:50000",
			// The workers run this binary (as make submit-flink stages
			// bin/tweetindex-linux-amd64); without it Beam compiles one.
			"--worker_binary=" + tweetindex}

		// The embedded store is refused in one line, before the job starts.
		_, stderr, err := runIn(t, root, time.Minute, tweetindex, append([]string{"index", "--input", "testdata/sample/*",
			"--store", filepath.Join(tempDir(t), "store")}, external...)...)
		if err == nil || !strings.Contains(stderr, "tweetindex index: --store: the embedded store is a directory that one process at a time can open") {
			t.Errorf("the embedded store with EXTERNAL workers: err %v, stderr:\n%s", err, stderr)
		}
		if jobs := jobsOn(t, endpoint); len(jobs) != 0 {
			t.Errorf("the refused run submitted %d jobs", len(jobs))
		}

		_, cfg := startCQL(t)
		start := time.Now()
		stdout, stderr, err := runIn(t, root, 5*time.Minute, tweetindex, append([]string{"index", "--input", "testdata/sample/*",
			"--cassandra", cfg.Hosts[0], "--keyspace", cfg.Keyspace, "--consistency", "ONE"}, external...)...)
		if err != nil {
			t.Fatalf("index with a worker pool: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		t.Logf("worker-pool run: %v\n%s", time.Since(start).Round(time.Millisecond), stdout)
		inProcess, _ := indexSample(t)
		diffTables(t, dumpStore(t, inProcess), dumpCassandra(t, cfg), "in process", "worker pool")
	})
}

// runIn runs name with args in dir, killing it after timeout.
func runIn(t *testing.T, dir string, timeout time.Duration, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("killed after %v: %w", timeout, err)
	}
	return out.String(), errOut.String(), err
}

// startWorkerPool starts the Go SDK's boot program at path as a worker
// pool, in a directory of its own, and waits until it listens on port
// 50000. The test's cleanup kills it and the workers it started.
func startWorkerPool(t *testing.T, path string) {
	t.Helper()
	logPath := filepath.Join(tempDir(t), "pool.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--worker_pool")
	cmd.Dir = tempDir(t)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = workerPoolProcAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		killGroup(cmd.Process.Pid)
		<-exited
		if t.Failed() {
			log, _ := os.ReadFile(logPath)
			t.Logf("the worker pool's log:\n%s", log)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", "localhost:50000", time.Second)
		if err == nil {
			conn.Close()
			return
		}
		select {
		case werr := <-exited:
			exited <- werr
			t.Fatalf("the worker pool exited before listening: %v", werr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker pool does not listen on port 50000 after 30 s: %v", err)
		}
	}
}

// goBuild builds pkg into out from the module at root.
func goBuild(t *testing.T, root, out, pkg string) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -o %s %s: %v\n%s", out, pkg, err, msg)
	}
	t.Logf("go build %s: %v", pkg, time.Since(start).Round(time.Millisecond))
}

// runCommand runs name with args, killing it after timeout.
func runCommand(t *testing.T, timeout time.Duration, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("killed after %v: %w", timeout, err)
	}
	return out.String(), errOut.String(), err
}

// startPrism starts the prism job server at path on a free port and
// returns its endpoint once it accepts connections. The test's cleanup
// kills it.
func startPrism(t *testing.T, path string) string {
	t.Helper()
	addr := closedPort(t)
	_, port, _ := net.SplitHostPort(addr)
	logPath := filepath.Join(tempDir(t), "prism.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// prism listens on --job_port (job service, artifacts and the workers'
	// Fn API, multiplexed) and, unless --serve_http=false, on --web_port
	// (8074 by default, which two servers would share). The idle shutdown
	// stops a server this test failed to kill.
	cmd := exec.Command(path, "--job_port="+port, "--serve_http=false", "--idle_shutdown_timeout=10m", "--log_level=warn")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			log, _ := os.ReadFile(logPath)
			t.Logf("prism's log:\n%s", log)
		}
	})

	endpoint := "localhost:" + port
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", endpoint, time.Second)
		if err == nil {
			conn.Close()
			return endpoint
		}
		select {
		case werr := <-exited:
			exited <- werr
			t.Fatalf("prism exited before accepting connections: %v", werr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("prism does not accept connections on %s after 30 s: %v", endpoint, err)
		}
	}
}

// jobsOn lists the jobs a job server knows.
func jobsOn(t *testing.T, endpoint string) []*jobpb.JobInfo {
	t.Helper()
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := jobpb.NewJobServiceClient(conn).GetJobs(ctx, &jobpb.GetJobsRequest{})
	if err != nil {
		t.Fatalf("GetJobs on %s: %v", endpoint, err)
	}
	return resp.GetJobInfo()
}
