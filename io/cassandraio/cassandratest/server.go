package cassandratest

import (
	"crypto/md5"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// Options configures a Server. The zero value is ready to use.
type Options struct {
	// Addr is the address to listen on; default "127.0.0.1:0" (a free port).
	Addr string
	// Now is the clock of TTL expiry; default time.Now. Tests that check
	// expiry set it.
	Now func() time.Time
	// ClusterName, DataCenter, Rack and ReleaseVersion are what system.local
	// reports; defaults "cassandratest", "datacenter1", "rack1", "4.1.5".
	ClusterName    string
	DataCenter     string
	Rack           string
	ReleaseVersion string
	// Logf, when set, receives one line per refused statement (with the
	// reason) and per connection error.
	Logf func(format string, args ...any)
	// Trace also sends Logf every statement text received (QUERY and
	// PREPARE): what a driver or tool asks, to see what it needs.
	Trace bool
	// Users, when not empty, makes the server require authentication as
	// Cassandra's PasswordAuthenticator does: a connection's STARTUP is
	// answered with AUTHENTICATE, and the client must send one of these
	// user names with its password (user name to password) in an
	// AUTH_RESPONSE (SASL PLAIN) before anything else. Default: none, no
	// authentication.
	Users map[string]string
	// TLS, when set, serves TLS with it (client-to-node encryption; with
	// ClientAuth set, client certificates too). Default: plaintext.
	TLS *tls.Config
}

// Server is an in-process CQL native protocol v4 server holding the tables
// of schemas.CQLTables in memory. It is safe for concurrent use.
type Server struct {
	opts    Options
	ln      net.Listener
	store   *store
	hostID  [16]byte
	started time.Time

	mu       sync.Mutex
	conns    map[*conn]struct{}
	prepared map[[16]byte]*stmt
	resolved map[string]*stmt
	faults   []*Fault

	stats  counters
	busyMu sync.Mutex
	busy   *sync.Cond
	active int // requests being processed
	writes int // write requests being processed
	closed chan struct{}
	wg     sync.WaitGroup
}

type counters struct {
	connections, requests, queries, prepares, executes, batches atomic.Int64
	authFailures                                                atomic.Int64
	writes, rowsWritten, rowsReplaced, rowsDeleted, rejected    atomic.Int64
	maxConcurrentWrites                                         atomic.Int64
	faults                                                      [faultKinds]atomic.Int64
	writeCL                                                     [16]atomic.Int64
}

// New starts a server listening on opts.Addr. Close stops it.
func New(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ClusterName == "" {
		opts.ClusterName = "cassandratest"
	}
	if opts.DataCenter == "" {
		opts.DataCenter = "datacenter1"
	}
	if opts.Rack == "" {
		opts.Rack = "rack1"
	}
	if opts.ReleaseVersion == "" {
		opts.ReleaseVersion = "4.1.5"
	}
	ln, err := listen(opts.Addr)
	if err != nil {
		return nil, err
	}
	if opts.TLS != nil {
		ln = tls.NewListener(ln, opts.TLS)
	}
	s := &Server{
		opts:     opts,
		ln:       ln,
		store:    newStore(),
		started:  time.Now(),
		conns:    map[*conn]struct{}{},
		prepared: map[[16]byte]*stmt{},
		resolved: map[string]*stmt{},
		closed:   make(chan struct{}),
	}
	s.busy = sync.NewCond(&s.busyMu)
	s.hostID = md5.Sum([]byte("cassandratest host " + ln.Addr().String()))
	s.hostID[6] = s.hostID[6]&0x0f | 0x40 // a version 4 UUID
	s.hostID[8] = s.hostID[8]&0x3f | 0x80
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// handedOut holds the addresses of the process's servers so far.
var (
	handedOutMu sync.Mutex
	handedOut   = map[string]bool{}
)

// listen listens on addr. For a free port (port 0) it returns one no
// server of this process had before: the kernel often hands a closed
// server's port to the next listener, and a client that keeps a session
// per address for the process (gocql's pool, as cassandraio shares it;
// Beam's Go harness never tears a DoFn down, so a pipeline's session
// outlives its run) would take the new server for the old one restarted
// and fail its first requests with "no hosts available in the pool"
// until it reconnects. The ports refused stay held until one is found.
func listen(addr string) (net.Listener, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("cassandratest: listen %s: %w", addr, err)
	}
	handedOutMu.Lock()
	defer handedOutMu.Unlock()
	var held []net.Listener
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	for {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("cassandratest: listen %s: %w", addr, err)
		}
		got := ln.Addr().String()
		if port != "0" || !handedOut[got] {
			handedOut[got] = true
			return ln, nil
		}
		if len(held) == 1000 {
			ln.Close()
			return nil, fmt.Errorf("cassandratest: listen %s: no port free that this process's servers have not had", addr)
		}
		held = append(held, ln)
	}
}

// Addr returns the address the server listens on, as "127.0.0.1:PORT":
// a host for gocql.NewCluster.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server: it closes the listener and every connection, and
// waits for the connection goroutines to end.
func (s *Server) Close() error {
	select {
	case <-s.closed:
		return nil
	default:
	}
	close(s.closed)
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.closed:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.logf("cassandratest: accept: %v", err)
			return
		}
		c := newConn(s, nc)
		s.mu.Lock()
		select {
		case <-s.closed:
			s.mu.Unlock()
			nc.Close()
			return
		default:
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.stats.connections.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

func (s *Server) now() time.Time { return s.opts.Now() }

// Stats counts what the server has served since it started.
type Stats struct {
	Connections int64 // connections accepted
	Requests    int64 // request frames received
	Queries     int64 // QUERY requests
	Prepares    int64 // PREPARE requests
	Executes    int64 // EXECUTE requests
	Batches     int64 // BATCH requests
	// Writes counts write requests: inserts (QUERY or EXECUTE) and batches.
	Writes int64
	// RowsWritten counts rows applied by inserts.
	RowsWritten int64
	// RowsReplaced counts applied rows that replaced a live row of the same
	// primary key: the rewrites a retry after an applied-but-failed write
	// makes. They never add rows.
	RowsReplaced int64
	// RowsDeleted counts rows removed by DELETE statements.
	RowsDeleted int64
	// Rejected counts statements refused because they are not in the catalog.
	Rejected int64
	// AuthFailures counts authentications refused (a wrong user name or
	// password).
	AuthFailures int64
	// MaxConcurrentWrites is the most write requests processed at once.
	MaxConcurrentWrites int64
	// Faults counts the injected faults served, by kind.
	Faults map[FaultKind]int64
	// WriteConsistency counts write requests by consistency level name.
	WriteConsistency map[string]int64
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	st := Stats{
		Connections:         s.stats.connections.Load(),
		Requests:            s.stats.requests.Load(),
		Queries:             s.stats.queries.Load(),
		Prepares:            s.stats.prepares.Load(),
		Executes:            s.stats.executes.Load(),
		Batches:             s.stats.batches.Load(),
		Writes:              s.stats.writes.Load(),
		RowsWritten:         s.stats.rowsWritten.Load(),
		RowsReplaced:        s.stats.rowsReplaced.Load(),
		RowsDeleted:         s.stats.rowsDeleted.Load(),
		Rejected:            s.stats.rejected.Load(),
		AuthFailures:        s.stats.authFailures.Load(),
		MaxConcurrentWrites: s.stats.maxConcurrentWrites.Load(),
		Faults:              map[FaultKind]int64{},
		WriteConsistency:    map[string]int64{},
	}
	for k := FaultKind(1); k < faultKinds; k++ {
		if n := s.stats.faults[k].Load(); n > 0 {
			st.Faults[k] = n
		}
	}
	for cl := range s.stats.writeCL {
		if n := s.stats.writeCL[cl].Load(); n > 0 {
			st.WriteConsistency[consistencyName(uint16(cl))] = n
		}
	}
	return st
}

// Row is a stored row: the Go values of every column (the types
// schemas.CQLValues gives; nil for null), with its TTL and write time.
type Row struct {
	Values    []any
	TTL       int32 // seconds, as written; 0: none
	WriteTime int64 // microseconds since 1970
}

// Rows returns the live rows of a table, partition by partition, each
// partition in clustering order.
func (s *Server) Rows(keyspace, tableName string) ([]Row, error) {
	t, err := s.store.table(keyspace, tableName)
	if err != nil {
		return nil, err
	}
	var rows []Row
	cols := t.def.Columns()
	t.scan(s.now().Unix(), nil, nil, "", func(_, _ string, r *row) bool {
		out := Row{Values: make([]any, len(cols)), TTL: r.ttl, WriteTime: r.ts}
		for i, c := range cols {
			if r.values[i] != nil {
				out.Values[i] = decodeValue(c.Type, r.values[i])
			}
		}
		rows = append(rows, out)
		return true
	})
	return rows, nil
}

// Cells returns every live row of the table of t as its cell
// (schemas.CellFromCQL), read from the server's memory without the driver.
func (s *Server) Cells(keyspace string, t schemas.Table) ([]schemas.Cell, error) {
	ct := schemas.CQLTableOf(t)
	if ct == nil {
		return nil, fmt.Errorf("cassandratest: unknown table %q", byte(t))
	}
	rows, err := s.Rows(keyspace, ct.Name)
	if err != nil {
		return nil, err
	}
	cells := make([]schemas.Cell, 0, len(rows))
	for _, r := range rows {
		c, err := schemas.CellFromCQL(ct, r.Values)
		if err != nil {
			return cells, fmt.Errorf("cassandratest: %w", err)
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// Replication returns the replication a keyspace was created with, and
// whether it exists.
func (s *Server) Replication(keyspace string) (schemas.ReplicationOptions, bool) {
	k := s.store.keyspace(keyspace)
	if k == nil {
		return schemas.ReplicationOptions{}, false
	}
	return k.repl, true
}

// begin and end bracket the processing of a request.
func (s *Server) begin(write bool) {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	s.active++
	if write {
		s.writes++
		if int64(s.writes) > s.stats.maxConcurrentWrites.Load() {
			s.stats.maxConcurrentWrites.Store(int64(s.writes))
		}
	}
}

func (s *Server) end(write bool) {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	s.active--
	if write {
		s.writes--
	}
	if s.active == 0 {
		s.busy.Broadcast()
	}
}

// WaitIdle waits until no request is being processed: every request
// received so far is answered (or its connection is gone), and its writes,
// if any, are applied. A slow write whose client gave up is applied too.
func (s *Server) WaitIdle() {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	for s.active > 0 {
		s.busy.Wait()
	}
}

// ForgetPrepared drops every prepared statement, as a restarted node does:
// clients get UNPREPARED and must prepare again.
func (s *Server) ForgetPrepared() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.prepared)
}
