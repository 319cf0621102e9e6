// Package storeiotest is what tests of the embedded store (package
// storeio) and of the pipelines that write it share to make its disk fail:
// the filesystem every file of a store goes through (SetFS), Pebble's
// vfs/errorfs wrapped around it to fail one chosen operation as a full
// disk (ENOSPC, and every write after it) or a failing one (EIO, once)
// would (Fault, Inject), points chosen at random from a seed that the
// test prints (Points), and the child process a faulted operation runs
// in (RunChild, ChildFault): Pebble ends the process when it cannot write
// its MANIFEST or log (storeio's one line, exit 1), so the operation runs
// where that is what an operator would see, and the test, in the parent,
// opens the store again with no fault, as the operator would after
// freeing space.
//
// It is for tests only, and changes nothing unless they call it.
package storeiotest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/tweetindex/tweetindex/io/storeio/internal/hooks"
)

// SetFS makes fs the filesystem the stores opened from now on go through
// (Pebble's files and the bulk load's: run files, tables, ingestion plan),
// until the test ends. A store keeps the filesystem it was opened on until
// it is closed.
func SetFS(t testing.TB, fs vfs.FS) {
	t.Helper()
	old := hooks.Set(fs)
	t.Cleanup(func() { hooks.Set(old) })
}

// FS returns the filesystem stores are opened on now.
func FS() vfs.FS { return hooks.FS() }

// SetBulkChunkBytes makes the chunks of the bulk loads that begin from now
// on n bytes, until the test ends: a test's small input then spills run
// files and merges them, as millions of tweets do with the 32 MB chunks
// of a run.
func SetBulkChunkBytes(t testing.TB, n int) {
	t.Helper()
	old := hooks.ChunkBytes.Swap(int64(n))
	t.Cleanup(func() { hooks.ChunkBytes.Store(old) })
}

// Kind is a kind of the store's files, by name: Pebble's tables ("sst"),
// write-ahead logs ("wal"), MANIFEST and its marker ("manifest"), OPTIONS
// ("options"), the bulk load's scratch files ("bulk-load": runs, tables,
// plan), and the rest ("other": LOCK, the directories).
func Kind(path string) string {
	base := filepath.Base(path)
	switch {
	case strings.Contains(filepath.ToSlash(path), "/bulk-load/") || base == "bulk-load":
		return "bulk-load"
	case strings.HasSuffix(base, ".sst") || strings.HasSuffix(base, ".blob"):
		return "sst"
	case strings.HasSuffix(base, ".log"):
		return "wal"
	case strings.HasPrefix(base, "MANIFEST") || strings.HasPrefix(base, "marker.") || base == "CURRENT":
		return "manifest"
	case strings.HasPrefix(base, "OPTIONS"):
		return "options"
	}
	return "other"
}

// IsWrite reports whether op changes what is on disk: creating, writing,
// syncing, renaming, linking or removing a file, making a directory.
// Taking Pebble's lock (an flock of the LOCK file, which every store
// holds already) and closing a file are not: errorfs counts them among
// writes.
func IsWrite(op errorfs.Op) bool {
	switch op.Kind {
	case errorfs.OpLock, errorfs.OpFileClose:
		return false
	}
	return op.Kind.ReadOrWrite() == errorfs.OpIsWrite
}

// IsRead reports whether op reads a file (its bytes; not a stat or a
// listing, which the store's own code treats as absent files when they
// fail).
func IsRead(op errorfs.Op) bool {
	return op.Kind == errorfs.OpFileRead || op.Kind == errorfs.OpFileReadAt
}

// Class is a class of operations a fault counts: reads or writes of one
// kind of file (Kind).
type Class struct {
	Write bool
	Kind  string
}

func (c Class) String() string {
	rw := "read"
	if c.Write {
		rw = "write"
	}
	return rw + ":" + c.Kind
}

// classOf returns op's class, and false for operations no fault is put on.
func classOf(op errorfs.Op) (Class, bool) {
	switch {
	case IsWrite(op):
		return Class{Write: true, Kind: Kind(op.Path)}, true
	case IsRead(op):
		return Class{Kind: Kind(op.Path)}, true
	}
	return Class{}, false
}

// Fault fails the Index-th (from 0) operation of Class with Errno: ENOSPC,
// a full disk, fails it and every write after it (until the fault is
// removed, as space is freed); EIO fails it alone.
type Fault struct {
	Class Class
	Index int
	Errno syscall.Errno
}

func (f Fault) String() string {
	name := "EIO"
	if f.Errno == syscall.ENOSPC {
		name = "ENOSPC"
	}
	return fmt.Sprintf("%s at %s #%d", name, f.Class, f.Index)
}

// encode and parseFault carry a fault to a child process.
func (f Fault) encode() string {
	return fmt.Sprintf("%d,%s,%d,%d", f.Index, f.Class, int(f.Errno), btoi(f.Class.Write))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func parseFault(s string) (Fault, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return Fault{}, fmt.Errorf("storeiotest: fault %q", s)
	}
	idx, err1 := strconv.Atoi(parts[0])
	errno, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		return Fault{}, fmt.Errorf("storeiotest: fault %q", s)
	}
	_, kind, _ := strings.Cut(parts[1], ":")
	return Fault{Class: Class{Write: parts[3] == "1", Kind: kind}, Index: idx, Errno: syscall.Errno(errno)}, nil
}

// Injection is a fault put on the store's filesystem (Inject).
type Injection struct {
	Fault Fault
	mu    sync.Mutex
	seen  int
	hit   string // the operation failed, once it is
	full  atomic.Bool
}

// Hit returns the operation the fault failed ("" if none yet).
func (in *Injection) Hit() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.hit
}

// MaybeError is errorfs's Injector.
func (in *Injection) MaybeError(op errorfs.Op) error {
	c, ok := classOf(op)
	if !ok {
		return nil
	}
	if in.full.Load() && c.Write {
		return pathError(op, in.Fault.Errno)
	}
	if c != in.Fault.Class {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	n := in.seen
	in.seen++
	if n != in.Fault.Index {
		return nil
	}
	in.hit = fmt.Sprintf("%s %s", opName(op.Kind), op.Path)
	if in.Fault.Errno == syscall.ENOSPC {
		in.full.Store(true)
	}
	return pathError(op, in.Fault.Errno)
}

func (in *Injection) String() string { return in.Fault.String() }

func pathError(op errorfs.Op, errno syscall.Errno) error {
	return &os.PathError{Op: opName(op.Kind), Path: op.Path, Err: errno}
}

func opName(k errorfs.OpKind) string {
	switch k {
	case errorfs.OpFileRead, errorfs.OpFileReadAt:
		return "read"
	case errorfs.OpFileWrite, errorfs.OpFileWriteAt:
		return "write"
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo, errorfs.OpFileFlush:
		return "sync"
	case errorfs.OpCreate:
		return "create"
	case errorfs.OpRename:
		return "rename"
	case errorfs.OpLink:
		return "link"
	case errorfs.OpRemove, errorfs.OpRemoveAll:
		return "remove"
	case errorfs.OpMkdirAll:
		return "mkdir"
	case errorfs.OpFilePreallocate:
		return "fallocate"
	case errorfs.OpReuseForWrite:
		return "reuse"
	}
	return "op"
}

// Inject puts f on the filesystem stores are opened on (Pebble's
// vfs/errorfs around the operating system's), until the test ends.
func Inject(t testing.TB, f Fault) *Injection {
	t.Helper()
	in := &Injection{Fault: f}
	SetFS(t, errorfs.Wrap(vfs.Default, in))
	return in
}

// Counts are the operations of each class an operation made (Count).
type Counts map[Class]int

// Count wraps the filesystem stores are opened on to count the
// operations of each class made through it, until stop is called (or the
// test ends), which returns the counts. Stores opened meanwhile count
// until they are closed.
func Count(t testing.TB) (stop func() Counts) {
	t.Helper()
	var mu sync.Mutex
	c := Counts{}
	counting := true
	old := hooks.Set(errorfs.Wrap(FS(), errorfs.InjectorFunc(func(op errorfs.Op) error {
		if cl, ok := classOf(op); ok {
			mu.Lock()
			if counting {
				c[cl]++
			}
			mu.Unlock()
		}
		return nil
	})))
	var once sync.Once
	stop = func() Counts {
		once.Do(func() {
			hooks.Set(old)
			mu.Lock()
			counting = false
			mu.Unlock()
		})
		return c
	}
	t.Cleanup(func() { stop() })
	return stop
}

// Seed returns the seed of a test's random points: TWEETINDEX_FAULT_SEED
// if set (to run again the points a failed run printed), the time
// otherwise. It logs it.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TWEETINDEX_FAULT_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TWEETINDEX_FAULT_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("fault seed %d (TWEETINDEX_FAULT_SEED=%d runs these points again)", seed, seed)
	return seed
}

// Points returns n faults chosen at random from seed among the
// operations counts has (a clean run's, Count): for each, a class of
// classes (those of counts that errnos may fail: ENOSPC only writes),
// each class as likely as another whatever its number of operations (a
// run writes its MANIFEST a few times and its tables thousands), then an
// operation of that class, each as likely, and an errno of errnos.
func Points(seed uint64, counts Counts, n int, errnos ...syscall.Errno) []Fault {
	r := rand.New(rand.NewPCG(seed, 38))
	var classes []Class
	for c, k := range counts {
		if k > 0 {
			classes = append(classes, c)
		}
	}
	slices.SortFunc(classes, func(a, b Class) int { return strings.Compare(a.String(), b.String()) })
	var faults []Fault
	for len(faults) < n && len(classes) > 0 {
		errno := errnos[r.IntN(len(errnos))]
		var fit []Class
		for _, c := range classes {
			if c.Write || errno != syscall.ENOSPC {
				fit = append(fit, c)
			}
		}
		if len(fit) == 0 {
			continue
		}
		c := fit[r.IntN(len(fit))]
		faults = append(faults, Fault{Class: c, Index: r.IntN(counts[c]), Errno: errno})
	}
	return faults
}

const childEnv = "TWEETINDEX_STOREIOTEST_FAULT"

// ChildFault returns the fault this process was started with by RunChild,
// and false in any other process.
func ChildFault() (Fault, bool) {
	s := os.Getenv(childEnv)
	if s == "" {
		return Fault{}, false
	}
	f, err := parseFault(s)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	return f, true
}

// ChildEnv returns the value of the variable name RunChild set in the
// child (env).
func ChildEnv(name string) string { return os.Getenv("TWEETINDEX_STOREIOTEST_" + name) }

// Child is what a child process did (RunChild).
type Child struct {
	Exit   int
	Stdout string
	Stderr string
}

// LastLine returns the last line the child wrote on stderr: the error it
// ended with.
func (c Child) LastLine() string {
	lines := strings.Split(strings.TrimRight(c.Stderr, "\n"), "\n")
	return lines[len(lines)-1]
}

// RunChild runs the test named test of this test binary again in a child
// process, with fault f (ChildFault) and env (name=value pairs, read with
// ChildEnv), and returns what it did. The child's test does the faulted
// operation, writes the error it ends with as its last line on stderr and
// exits 1, or exits 0.
func RunChild(t testing.TB, test string, f Fault, env ...string) Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), childEnv+"="+f.encode())
	for _, kv := range env {
		cmd.Env = append(cmd.Env, "TWEETINDEX_STOREIOTEST_"+kv)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	c := Child{Stdout: stdout.String(), Stderr: stderr.String()}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("child for %s: %v", f, err)
		}
		c.Exit = exit.ExitCode()
	}
	return c
}

// CheckFailure fails the test unless the child ended as a command on the
// store in dir may end after a fault: exit 0, or exit 1 with its last
// line on stderr one line naming the store, and never a panic or a
// goroutine trace.
func CheckFailure(t testing.TB, c Child, dir string, f Fault) {
	t.Helper()
	for _, line := range strings.Split(c.Stderr, "\n") {
		if strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "goroutine ") || strings.HasPrefix(line, "fatal error:") {
			t.Errorf("%s: the child panicked (exit %d):\n%s", f, c.Exit, tail(c.Stderr, 40))
			return
		}
	}
	switch c.Exit {
	case 0:
	case 1:
		last := c.LastLine()
		if !strings.Contains(last, dir) {
			t.Errorf("%s: the child's error does not name the store %s: %q", f, dir, last)
		}
	default:
		t.Errorf("%s: the child exited %d, want 0 or 1:\n%s", f, c.Exit, tail(c.Stderr, 40))
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ExitChild ends a child process: with the error err on stderr, one line,
// and exit 1, or exit 0 if err is nil.
func ExitChild(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
