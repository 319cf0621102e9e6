package job

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

var benchPaths = flag.String("bench.paths", "files-store,kafka-store,kafka-stream,files-cassandra,pool-cassandra",
	"BenchmarkPaths's paths, comma-separated, in the order run (files-store always runs first: the others' tables are checked against its)")

// BenchmarkPaths indexes the same -bench.tweets generated tweets (seed 7,
// the tweets of make bench) along the paths data teams run (make
// bench-paths):
//
//   - files-store: files into the embedded store, in process;
//   - kafka-store: a bounded read of a topic (devbroker, 4 partitions,
//     --stop latest) into the embedded store, in process;
//   - kafka-stream: the same topic read by the streaming graph (--group
//     --commit, the offsets committed as a stream commits them), drained
//     at the latest offsets (--stop latest): a stream's throughput when
//     it has a backlog to catch up;
//   - files-cassandra: files into Cassandra (devcql, on this machine), in
//     process;
//   - pool-cassandra: files into Cassandra with prism as a job server and
//     the Go SDK's worker pool running the workers in other processes
//     (EXTERNAL), as on Flink.
//
// It starts and stops its own servers, each run's afresh, and prints one
// table: wall, tweets/s, CPU microseconds a tweet (user + sys) of
// tweetindex's processes (the command, the job server and the workers)
// and of each apart, devcql's and devbroker's apart, and the peak RSS of
// tweetindex's largest process. Every path's tables must equal the
// in-process file run's (dead letters, whose keys name their origin, by
// count and reasons); it fails otherwise.
//
// The servers' and workers' CPU is read from /proc (Linux): every
// process of a server's tree, the exited ones counted in their parents'
// children's time or kept as zombies; peak RSS is their high-water mark,
// sampled every 50 ms.
func BenchmarkPaths(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("BenchmarkPaths reads the CPU of its servers' processes from /proc (Linux)")
	}
	paths := strings.Split(*benchPaths, ",")
	for i := range paths {
		paths[i] = strings.TrimSpace(paths[i])
		if !slices.Contains([]string{"files-store", "kafka-store", "kafka-stream", "files-cassandra", "pool-cassandra"}, paths[i]) {
			b.Fatalf("-bench.paths: unknown path %q (want files-store, kafka-store, kafka-stream, files-cassandra, pool-cassandra)", paths[i])
		}
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return p == "files-store" })
	root := repoRoot(b)
	bins := tempDir(b)
	tweetindex := buildCommand(b)
	build := func(name, pkg string) string {
		out := filepath.Join(bins, name)
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("go build %s: %v", pkg, err)
		}
		return out
	}
	devcql := build("devcql", "./pipelines/cmd/devcql")
	devbroker := build("devbroker", "./pipelines/cmd/devbroker")
	var prism, boot string
	if slices.Contains(paths, "pool-cassandra") {
		prism = build("prism", "github.com/apache/beam/sdks/v2/go/cmd/prism")
		boot = build("boot", "github.com/apache/beam/sdks/v2/go/container")
	}
	data := benchData(b, fmt.Sprintf("tweets-%d", *benchTweets), *benchTweets, 7, 0)
	warmInput(b, data)
	input := filepath.Join(data, "*.jsonl*")
	b.ResetTimer()

	var rows []pathResult
	tmp := tempDir(b)

	// files-store: the reference.
	store := filepath.Join(tmp, "files-store")
	ref := runPath(b, "files -> store, in process", nil, tweetindex, "index", "--input", input, "--store", store,
		"--summary", filepath.Join(tmp, "files-store.json"), "--progress", "0")
	refTables := fingerprintStore(b, store)
	ref.check = "reference"
	rows = append(rows, ref)
	os.RemoveAll(store)

	for _, path := range paths {
		var r pathResult
		switch path {
		case "kafka-store", "kafka-stream":
			broker := startServer(b, "devbroker", devbroker, "serve", "-addr", freeAddr(b), "-topic", "tweets", "-partitions", "4")
			files, _ := filepath.Glob(input)
			start := time.Now()
			if out, err := exec.Command(devbroker, append([]string{"produce", "-broker", broker.addr, "-topic", "tweets", "-rate", "0"}, files...)...).CombinedOutput(); err != nil {
				b.Fatalf("devbroker produce: %v\n%s", err, out)
			}
			fmt.Printf("produced %d files into devbroker in %.1f s\n", len(files), time.Since(start).Seconds())
			kstore := filepath.Join(tmp, path)
			name, args := "Kafka (4 partitions) -> store, in process", []string{"index",
				"--kafka", broker.addr, "--topic", "tweets", "--stop", "latest", "--store", kstore,
				"--summary", filepath.Join(tmp, path+".json"), "--progress", "0"}
			if path == "kafka-stream" {
				name, args = "Kafka (4 partitions) -> store, streaming, in process", append(args, "--group", "bench", "--commit")
			}
			r = runPath(b, name, []*server{broker}, tweetindex, args...)
			broker.stop(b)
			r.check = checkTables(refTables, fingerprintStore(b, kstore))
			os.RemoveAll(kstore)
		case "files-cassandra", "pool-cassandra":
			cql := startServer(b, "devcql", devcql, "-addr", freeAddr(b))
			if out, err := exec.Command(tweetindex, "schema", "apply", "--cassandra", cql.addr).CombinedOutput(); err != nil {
				b.Fatalf("schema apply: %v\n%s", err, out)
			}
			args := []string{"index", "--input", input, "--cassandra", cql.addr, "--consistency", "ONE",
				"--summary", filepath.Join(tmp, path+".json"), "--progress", "0"}
			servers := []*server{cql}
			name := "files -> Cassandra, in process"
			if path == "pool-cassandra" {
				if ln, err := net.Listen("tcp", "localhost:50000"); err != nil {
					b.Fatalf("port 50000, where the Go SDK's worker pool listens, is in use: %v", err)
				} else {
					ln.Close()
				}
				pool := startServer(b, "workers", boot, "--worker_pool")
				pool.waitListen(b, "localhost:50000")
				js := startServer(b, "job server", prism, "--job_port="+portOf(freeAddr(b)), "--serve_http=false", "--idle_shutdown_timeout=10m", "--log_level=warn")
				js.addr = "localhost:" + strings.TrimPrefix(js.args[0], "--job_port=")
				js.waitListen(b, js.addr)
				servers = append(servers, js, pool)
				args = append(args, "--runner=universal", "--endpoint="+js.addr, "--environment_type=EXTERNAL",
					"--environment_config=localhost:50000", "--worker_binary="+tweetindex)
				name = "files -> Cassandra, job server + worker pool"
			}
			r = runPath(b, name, servers, tweetindex, args...)
			for _, s := range servers[1:] {
				s.stop(b)
			}
			cfg := cassandraio.DefaultConfig(cql.addr)
			cfg.Consistency = "ONE"
			r.check = checkTables(refTables, fingerprintCassandra(b, cfg))
			cql.stop(b)
		}
		if r.sum.Read != ref.sum.Read || r.sum.Indexed != ref.sum.Indexed || r.sum.DeadLettered != ref.sum.DeadLettered {
			r.check = fmt.Sprintf("counts differ: read %d indexed %d dead-lettered %d; in process from files %d, %d, %d",
				r.sum.Read, r.sum.Indexed, r.sum.DeadLettered, ref.sum.Read, ref.sum.Indexed, ref.sum.DeadLettered)
		}
		for table, n := range ref.sum.Rows {
			if r.sum.Rows[table] != n {
				r.check = fmt.Sprintf("summary: %d rows written to %s, %d in process from files", r.sum.Rows[table], table, n)
			}
		}
		rows = append(rows, r)
	}
	b.StopTimer()

	fmt.Printf("\n%d tweets (%s); CPU is user + sys, in microseconds a tweet read\n", ref.sum.Read, input)
	fmt.Println("| path | wall | tweets/s | CPU µs/tweet (tweetindex) | command | job server | workers | devcql | devbroker | peak RSS | tables |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	failed := false
	for _, r := range rows {
		per := func(role string) string {
			d, ok := r.cpu[role]
			if !ok {
				return "-"
			}
			return fmt.Sprintf("%.0f", float64(d.Microseconds())/float64(r.sum.Read))
		}
		own := r.cpu["command"] + r.cpu["job server"] + r.cpu["workers"]
		fmt.Printf("| %s | %.1f s | %.0f | %.0f | %s | %s | %s | %s | %s | %.0f MB | %s |\n", r.name, r.wall.Seconds(),
			float64(r.sum.Read)/r.wall.Seconds(), float64(own.Microseconds())/float64(r.sum.Read),
			per("command"), per("job server"), per("workers"), per("devcql"), per("devbroker"), r.peakMB, r.check)
		if r.check != "reference" && r.check != "equal" {
			failed = true
		}
		b.ReportMetric(float64(r.sum.Read)/r.wall.Seconds(), strings.Fields(r.name)[0]+"-tweets/s")
	}
	fmt.Println("\nwrites to Cassandra, a tweet read: rows (statements), requests (a partition's rows each), bytes devcql read")
	fmt.Println("| path | rows | requests | rows a request | bytes | retries |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, r := range rows {
		if r.sum.Cassandra == nil {
			continue
		}
		n := float64(r.sum.Read)
		c := r.sum.Cassandra
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.0f | %d |\n", r.name, float64(c["rows_written"])/n, float64(c["requests"])/n,
			float64(c["rows_written"])/float64(max(c["requests"], 1)), float64(r.wire)/n, c["retries"])
	}
	if failed {
		b.Fatal("a path's tables differ from the in-process file run's (the last column)")
	}
}

// pathResult is what one path's run measured.
type pathResult struct {
	name   string
	sum    Summary
	wall   time.Duration
	cpu    map[string]time.Duration // by role: command, job server, workers, devcql, devbroker
	peakMB float64                  // of tweetindex's largest process
	check  string                   // how its tables compare with the reference's
	wire   int64                    // bytes devcql read from its connections during the run
}

// runPath runs bin with args (an index command writing --summary) while
// sampling servers' processes, and returns what it measured.
func runPath(b *testing.B, name string, servers []*server, bin string, args ...string) pathResult {
	b.Helper()
	before := map[*server]procTotals{}
	var rchar0 int64
	for _, s := range servers {
		before[s] = s.totals()
		if s.role == "devcql" {
			rchar0 = s.bytesRead()
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				for _, s := range servers {
					s.totals()
				}
			}
		}
	}()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		b.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", name, err, out, stderr.Bytes())
	}
	r := pathResult{name: name, wall: wall, cpu: map[string]time.Duration{}}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.cpu["command"] = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r.peakMB = float64(ru.Maxrss) / 1024
	for _, s := range servers {
		after := s.totals()
		r.cpu[s.role] += after.cpu - before[s].cpu
		if s.role == "devcql" {
			r.wire = s.bytesRead() - rchar0
		}
		if s.role == "job server" || s.role == "workers" {
			r.peakMB = max(r.peakMB, float64(s.peakKB)/1024)
		}
	}
	for i, a := range args {
		if a == "--summary" {
			raw, err := os.ReadFile(args[i+1])
			if err != nil {
				b.Fatal(err)
			}
			if err := json.Unmarshal(raw, &r.sum); err != nil {
				b.Fatal(err)
			}
		}
	}
	if !r.sum.Reconciles() || r.sum.Read == 0 {
		b.Fatalf("%s: the summary does not reconcile: %+v", name, r.sum)
	}
	fmt.Printf("%s: %d tweets in %.2f s\n", name, r.sum.Read, wall.Seconds())
	return r
}

// server is a process the benchmark started (with the processes it
// starts), measured through /proc.
type server struct {
	role string
	args []string
	cmd  *exec.Cmd
	addr string // the address it printed on its first line, if any

	mu     sync.Mutex
	seen   map[int]procStat // the last reading of every process of its tree
	peakKB int64            // the largest VmHWM of a process of its tree
}

// startServer starts bin with args in a process group of its own. If its
// first line of standard output is an address (devcql, devbroker), it
// waits for it and sets addr.
func startServer(b *testing.B, role, bin string, args ...string) *server {
	b.Helper()
	s := &server{role: role, args: args, seen: map[int]procStat{}}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Dir = tempDir(b)
	s.cmd.SysProcAttr = workerPoolProcAttr()
	logFile, err := os.Create(filepath.Join(s.cmd.Dir, "log"))
	if err != nil {
		b.Fatal(err)
	}
	s.cmd.Stderr = logFile
	printsAddr := role == "devcql" || role == "devbroker"
	var stdout *bufio.Reader
	if printsAddr {
		pipe, err := s.cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout = bufio.NewReader(pipe)
	} else {
		s.cmd.Stdout = logFile
	}
	if err := s.cmd.Start(); err != nil {
		b.Fatalf("start %s: %v", role, err)
	}
	b.Cleanup(func() { s.stop(b) })
	if printsAddr {
		line, err := stdout.ReadString('\n')
		if err != nil {
			b.Fatalf("%s printed no address: %v", role, err)
		}
		s.addr = strings.TrimSpace(line)
		go func() { _, _ = stdout.WriteTo(logFile) }()
	}
	return s
}

// waitListen waits until addr accepts connections.
func (s *server) waitListen(b *testing.B, addr string) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s does not listen on %s after 30 s: %v", s.role, addr, err)
		}
		time.Sleep(20 * time.Millisecond) // polling a port another process opens
	}
}

// stop kills the server's process group and waits for it (once).
func (s *server) stop(b *testing.B) {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	killGroup(s.cmd.Process.Pid)
	s.cmd.Wait()
	s.cmd = nil
}

// procStat is a process's reading of /proc/PID/stat.
type procStat struct {
	ppid int
	cpu  time.Duration // utime + stime + cutime + cstime
}

// procTotals is the CPU of a server's tree.
type procTotals struct{ cpu time.Duration }

// totals reads every process of the server's tree and returns their CPU:
// their own and that of the children they reaped. A process that left
// the tree since the last reading was reaped by its parent, which holds
// its time now, or its parent left too; the latter's last reading is kept.
func (s *server) totals() procTotals {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return procTotals{}
	}
	all := readProcs()
	tree := map[int]bool{s.cmd.Process.Pid: true}
	for changed := true; changed; {
		changed = false
		for pid, st := range all {
			if !tree[pid] && tree[st.ppid] {
				tree[pid] = true
				changed = true
			}
		}
	}
	var t procTotals
	for pid := range tree {
		st, ok := all[pid]
		if !ok {
			continue
		}
		s.seen[pid] = st
		t.cpu += st.cpu
		if kb := vmHWM(pid); kb > s.peakKB {
			s.peakKB = kb
		}
	}
	for pid, st := range s.seen {
		if _, ok := all[pid]; !ok && !tree[st.ppid] {
			t.cpu += st.cpu // gone with its parent: nobody holds its time
		}
	}
	return t
}

// clockTick is USER_HZ, the unit of /proc/PID/stat's times on Linux.
const clockTick = 10 * time.Millisecond

// readProcs reads /proc/PID/stat of every process.
func readProcs() map[int]procStat {
	out := map[int]procStat{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The name, in parentheses, may hold spaces: the fields follow its last ')'.
		i := bytes.LastIndexByte(raw, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(raw[i+1:]))
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		var ticks int64
		for _, k := range []int{11, 12, 13, 14} { // utime stime cutime cstime
			n, _ := strconv.ParseInt(f[k], 10, 64)
			ticks += n
		}
		out[pid] = procStat{ppid: ppid, cpu: time.Duration(ticks) * clockTick}
	}
	return out
}

// vmHWM is the peak resident set of a process in KB (0 if unknown: a
// zombie).
func vmHWM(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// bytesRead is what the server's first process has read from files and
// sockets (rchar of /proc/PID/io): for devcql, the requests' bytes.
func (s *server) bytesRead() int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(b *testing.B) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// tableFingerprint is a table's rows and a hash of its dump; dead letters
// (keyed by their origin, which differs between files and Kafka) hash
// their sorted reasons instead.
type tableFingerprint struct {
	rows int64
	hash [32]byte
}

func fingerprintStore(b *testing.B, dir string) map[string]tableFingerprint {
	tables, err := sink.Open(sink.Config{Store: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer tables.Close()
	return fingerprint(b, tables)
}

func fingerprintCassandra(b *testing.B, cfg cassandraio.Config) map[string]tableFingerprint {
	tables, err := sink.Open(sink.Config{Cassandra: &cfg})
	if err != nil {
		b.Fatal(err)
	}
	defer tables.Close()
	return fingerprint(b, tables)
}

// fingerprint dumps every table but meta, as TestCassandraMatchesStore
// compares them.
func fingerprint(b *testing.B, src sink.Reader) map[string]tableFingerprint {
	out := map[string]tableFingerprint{}
	for _, table := range []schemas.Table{schemas.TableRaw, schemas.TableTerms, schemas.TableFrequency, schemas.TableGeo, schemas.TableDeadLetter, schemas.TableIdentity, schemas.TableAuthors} {
		h := sha256.New()
		var reasons []string
		enc := json.NewEncoder(h)
		enc.SetEscapeHTML(false)
		n, err := maintain.DumpRows(context.Background(), src, table, func(row any) error {
			if table == schemas.TableDeadLetter {
				raw, err := json.Marshal(row)
				if err != nil {
					return err
				}
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err != nil {
					return err
				}
				reasons = append(reasons, fmt.Sprint(m["reason"]))
				return nil
			}
			return enc.Encode(row)
		})
		if err != nil {
			b.Fatalf("dump %s: %v", table.Name(), err)
		}
		slices.Sort(reasons)
		for _, r := range reasons {
			fmt.Fprintln(h, r)
		}
		var fp tableFingerprint
		fp.rows = n
		copy(fp.hash[:], h.Sum(nil))
		out[table.Name()] = fp
	}
	return out
}

// checkTables says "equal", or which tables differ.
func checkTables(want, got map[string]tableFingerprint) string {
	var diff []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		w, g := want[name], got[name]
		if w != g {
			diff = append(diff, fmt.Sprintf("%s differs (%d rows, %d in process from files)", name, g.rows, w.rows))
		}
	}
	if len(diff) == 0 {
		return "equal"
	}
	return strings.Join(diff, "; ")
}
