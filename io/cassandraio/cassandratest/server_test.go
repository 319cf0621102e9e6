package cassandratest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

const ks = "tweetindex_test"

// startServer starts a server and a gocql session on it with the driver's
// defaults (protocol negotiation, full schema metadata), except timeouts.
func startServer(t *testing.T, opts Options, tune func(*gocql.ClusterConfig)) (*Server, *gocql.Session) {
	t.Helper()
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cl := gocql.NewCluster(srv.Addr())
	cl.Timeout = 5 * time.Second
	cl.ConnectTimeout = 5 * time.Second
	if tune != nil {
		tune(cl)
	}
	sess, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("gocql cannot connect: %v", err)
	}
	t.Cleanup(sess.Close)
	return srv, sess
}

func applySchema(t *testing.T, sess *gocql.Session, opts schemas.ReplicationOptions) {
	t.Helper()
	for _, stmt := range schemas.CQLSchema(ks, opts) {
		if err := sess.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

func insertQuery(sess *gocql.Session, c schemas.Cell, ttl int32) *gocql.Query {
	vals, err := schemas.CQLValues(nil, c)
	if err != nil {
		panic(err)
	}
	ct := schemas.CQLTableOf(c.Table)
	return sess.Query(schemas.CQLInsertStatement(ks, ct).Text, append(vals, ttl)...)
}

func selectCells(t *testing.T, sess *gocql.Session, ct *schemas.CQLTable, kind schemas.CQLStatementKind, pageSize int, binds ...any) []schemas.Cell {
	t.Helper()
	sc := schemas.NewCQLRowScanner(ct)
	it := sess.Query(schemas.CQLSelectStatement(ks, ct, kind).Text, binds...).PageSize(pageSize).Iter()
	var cells []schemas.Cell
	for it.Scan(sc.Dest()...) {
		c, err := sc.Cell()
		if err != nil {
			t.Fatal(err)
		}
		cells = append(cells, c)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return cells
}

func TestDriverConnectsAndSeesSchema(t *testing.T) {
	srv, sess := startServer(t, Options{ClusterName: "test cluster"}, nil)
	var cluster, partitioner, release string
	var tokens []string
	if err := sess.Query("SELECT cluster_name, partitioner, release_version, tokens FROM system.local WHERE key='local'").Scan(&cluster, &partitioner, &release, &tokens); err != nil {
		t.Fatal(err)
	}
	if cluster != "test cluster" || !strings.HasSuffix(partitioner, "Murmur3Partitioner") || release != "4.1.5" || len(tokens) != 1 {
		t.Errorf("system.local = %q %q %q %v", cluster, partitioner, release, tokens)
	}
	repl, err := schemas.ParseReplication("NetworkTopologyStrategy:datacenter1=3")
	if err != nil {
		t.Fatal(err)
	}
	applySchema(t, sess, repl)
	if got, ok := srv.Replication(ks); !ok || got.String() != repl.String() {
		t.Errorf("keyspace replication = %v, %v; want %v", got, ok, repl)
	}
	// The driver's own metadata (system_schema.keyspaces, tables, columns)
	// sees the keyspace and the layout of every table. (A new session reads
	// it at once; an open one refreshes it a second after the server's
	// SCHEMA_CHANGE event.)
	cl := gocql.NewCluster(srv.Addr())
	s2, err := cl.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	md, err := s2.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatal(err)
	}
	if md.StrategyClass != "org.apache.cassandra.locator.NetworkTopologyStrategy" || fmt.Sprint(md.StrategyOptions["datacenter1"]) != "3" {
		t.Errorf("keyspace metadata: %s %v", md.StrategyClass, md.StrategyOptions)
	}
	for _, ct := range schemas.CQLTables() {
		tm := md.Tables[ct.Name]
		if tm == nil {
			t.Errorf("table %s missing from driver metadata", ct.Name)
			continue
		}
		if len(tm.PartitionKey) != len(ct.PartitionKey) || len(tm.ClusteringColumns) != len(ct.Clustering) || len(tm.Columns) != len(ct.Columns()) {
			t.Errorf("%s: driver sees %d partition, %d clustering, %d columns", ct.Name, len(tm.PartitionKey), len(tm.ClusteringColumns), len(tm.Columns))
		}
		for i, c := range ct.PartitionKey {
			if tm.PartitionKey[i].Name != c.Name {
				t.Errorf("%s: partition key %d = %s, want %s", ct.Name, i, tm.PartitionKey[i].Name, c.Name)
			}
		}
	}
	// Applying again is a no-op.
	applySchema(t, sess, schemas.ReplicationOptions{})
	if got, _ := srv.Replication(ks); got.String() != repl.String() {
		t.Errorf("re-applying changed the replication to %v", got)
	}
}

func TestUseKeyspace(t *testing.T) {
	srv, sess := startServer(t, Options{}, nil)
	applySchema(t, sess, schemas.ReplicationOptions{})
	cl := gocql.NewCluster(srv.Addr())
	cl.Keyspace = ks // the driver sends USE on every connection
	s2, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("session with keyspace: %v", err)
	}
	s2.Close()
	cl.Keyspace = "missing"
	if s3, err := cl.CreateSession(); err == nil {
		s3.Close()
		t.Error("USE of a missing keyspace succeeded")
	}
}

func TestRejectsStatementsOutsideTheCatalog(t *testing.T) {
	srv, sess := startServer(t, Options{}, nil)
	applySchema(t, sess, schemas.ReplicationOptions{})
	for _, stmt := range []string{
		"SELECT * FROM " + ks + ".raw_tweets WHERE bucket = 1",
		"SELECT json FROM " + ks + ".raw_tweets",
		"TRUNCATE " + ks + ".raw_tweets",
		"DROP TABLE " + ks + ".raw_tweets",
		"INSERT INTO " + ks + ".metadata (value, name) VALUES (?, ?) USING TTL ?",
		"CREATE TABLE IF NOT EXISTS " + ks + ".other (k int PRIMARY KEY)",
		"UPDATE " + ks + ".metadata SET value = 0x00 WHERE name = 'x'",
	} {
		var args []any
		if n := strings.Count(stmt, "?"); n > 0 {
			args = []any{[]byte("v"), "n", int32(0)}
		}
		err := sess.Query(stmt, args...).Exec()
		var re gocql.RequestError
		if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid || !strings.Contains(re.Message(), "not in the tweetindex CQL catalog") {
			t.Errorf("%s: got %v, want an Invalid error naming the catalog", stmt, err)
		}
	}
	if got := srv.Stats().Rejected; got != 7 {
		t.Errorf("Rejected = %d, want 7", got)
	}
	// A catalog statement of a keyspace that does not exist.
	err := insertQuery(sess, schemas.MetaRow{Name: "x", Value: []byte("1")}.Cell(), 0).Exec()
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(schemas.CQLInsertStatement(ks, schemas.CQLMeta).Text, ks, "nokeyspace", 1)
	if err := sess.Query(other, "x", []byte("1"), int32(0)).Exec(); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("insert into a missing keyspace: %v", err)
	}
}

func TestPrimaryKeySemantics(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	srv, sess := startServer(t, Options{Now: clock}, nil)
	applySchema(t, sess, schemas.ReplicationOptions{})

	// 100 terms rows of one partition, inserted in reverse time order, and
	// one of another field: the partition reads back in row key order.
	day := time.Date(2018, 10, 10, 20, 0, 0, 0, time.UTC).Unix()
	var want []schemas.Cell
	for i := 99; i >= 0; i-- {
		c := schemas.TermRow{Term: "flink", Field: "text", Key: schemas.NewRowKey(day+int64(i)*30, []byte{byte(i)}), Freq: 1}.Cell()
		if err := insertQuery(sess, c, 0).Exec(); err != nil {
			t.Fatal(err)
		}
		want = append([]schemas.Cell{c}, want...)
	}
	other := schemas.TermRow{Term: "flink", Field: "user", Key: schemas.NewRowKey(day, nil)}.Cell()
	if err := insertQuery(sess, other, 0).Exec(); err != nil {
		t.Fatal(err)
	}
	// Upsert: the same key again, with another frequency, replaces the row.
	want[10] = schemas.TermRow{Term: "flink", Field: "text", Key: schemas.NewRowKey(day+10*30, []byte{10}), Freq: 7}.Cell()
	if err := insertQuery(sess, want[10], 0).Exec(); err != nil {
		t.Fatal(err)
	}
	// An older write time loses to the newer one, whatever the arrival order.
	stale := schemas.TermRow{Term: "flink", Field: "text", Key: schemas.NewRowKey(day+10*30, []byte{10}), Freq: 3}.Cell()
	if err := insertQuery(sess, stale, 0).WithTimestamp(1).Exec(); err != nil {
		t.Fatal(err)
	}

	vals, _ := schemas.CQLValues(nil, want[0])
	got := selectCells(t, sess, schemas.CQLTerms, schemas.CQLSelectPartition, 7, vals[:4]...) // paged by 7
	if len(got) != len(want) {
		t.Fatalf("partition read %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i].Key) != string(want[i].Key) || string(got[i].Value) != string(want[i].Value) {
			t.Fatalf("row %d = %q=%q, want %q=%q", i, got[i].Key, got[i].Value, want[i].Key, want[i].Value)
		}
	}
	// A slice [want[20], want[57]) of the partition, paged by 5: rows 20..56.
	lo, hi := want[20].Key[len(want[20].Key)-schemas.RowKeyLen:], want[57].Key[len(want[57].Key)-schemas.RowKeyLen:]
	slice := selectCells(t, sess, schemas.CQLTerms, schemas.CQLSelectSlice, 5, append(vals[:4:4], lo, hi)...)
	if len(slice) != 37 || string(slice[0].Key) != string(want[20].Key) || string(slice[36].Key) != string(want[56].Key) {
		t.Errorf("slice read %d rows (%+v ...), want rows 20 to 56 of the partition", len(slice), slice[:min(1, len(slice))])
	}
	all := selectCells(t, sess, schemas.CQLTerms, schemas.CQLSelectAll, 9)
	if len(all) != 101 {
		t.Errorf("full scan read %d rows, want 101", len(all))
	}
	rowVals, _ := schemas.CQLKeyValues(nil, schemas.TableTerms, want[10].Key)
	one := selectCells(t, sess, schemas.CQLTerms, schemas.CQLSelectRow, 0, rowVals...)
	if len(one) != 1 || string(one[0].Value) != "7" {
		t.Errorf("row read = %+v, want the row with freq 7", one)
	}
	if st := srv.Stats(); st.RowsWritten != 102 || st.RowsReplaced != 1 {
		t.Errorf("RowsWritten, RowsReplaced = %d, %d; want 102, 1", st.RowsWritten, st.RowsReplaced)
	}

	// TTL: the row is there until its TTL has passed on the server's clock.
	meta := schemas.MetaRow{Name: "expiring", Value: []byte(`{}`)}.Cell()
	if err := insertQuery(sess, meta, 60).Exec(); err != nil {
		t.Fatal(err)
	}
	rows, err := srv.Rows(ks, "metadata")
	if err != nil || len(rows) != 1 || rows[0].TTL != 60 {
		t.Fatalf("metadata rows = %+v, %v; want one row with TTL 60", rows, err)
	}
	clockMu.Lock()
	now = now.Add(61 * time.Second)
	clockMu.Unlock()
	if got := selectCells(t, sess, schemas.CQLMeta, schemas.CQLSelectAll, 0); len(got) != 0 {
		t.Errorf("expired row still read: %+v", got)
	}
}

func TestRejectsInvalidValues(t *testing.T) {
	_, sess := startServer(t, Options{}, nil)
	applySchema(t, sess, schemas.ReplicationOptions{})
	text := schemas.CQLInsertStatement(ks, schemas.CQLMeta).Text
	tests := []struct {
		name string
		args []any
	}{
		{"null primary key", []any{nil, []byte("v"), int32(0)}},
		{"invalid UTF-8 text", []any{"\xff\xfe", []byte("v"), int32(0)}},
		{"negative TTL", []any{"n", []byte("v"), int32(-1)}},
		{"too many values", []any{"n", []byte("v"), int32(0), int32(1)}},
	}
	for _, tt := range tests {
		// A QUERY with values, not prepared: the server validates the raw bytes.
		q := sess.Query(text, tt.args...)
		if err := q.Exec(); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	// Serializable consistency is only for conditional writes.
	if err := sess.Query(text, "n", []byte("v"), int32(0)).Consistency(gocql.Serial).Exec(); err == nil {
		t.Error("SERIAL write accepted")
	}
}

func TestReprepareAfterForget(t *testing.T) {
	srv, sess := startServer(t, Options{}, nil)
	applySchema(t, sess, schemas.ReplicationOptions{})
	c := schemas.MetaRow{Name: "a", Value: []byte("1")}.Cell()
	if err := insertQuery(sess, c, 0).Exec(); err != nil {
		t.Fatal(err)
	}
	before := srv.Stats().Prepares
	srv.ForgetPrepared() // as a restarted node would
	if err := insertQuery(sess, c, 0).Exec(); err != nil {
		t.Fatalf("execute after the server forgot its prepared statements: %v", err)
	}
	if srv.Stats().Prepares <= before {
		t.Error("the driver did not prepare again after UNPREPARED")
	}
}

func TestFaultsAnswerAsCassandraDoes(t *testing.T) {
	tests := []struct {
		fault   Fault
		check   func(error) bool
		stored  bool
		timeout time.Duration
	}{
		{Fault{Kind: WriteTimeout}, isCode(gocql.ErrCodeWriteTimeout), false, 0},
		{Fault{Kind: WriteTimeout, Applied: true}, isCode(gocql.ErrCodeWriteTimeout), true, 0},
		{Fault{Kind: Unavailable}, isCode(gocql.ErrCodeUnavailable), false, 0},
		{Fault{Kind: Overloaded}, isCode(gocql.ErrCodeOverloaded), false, 0},
		{Fault{Kind: DropConnection}, connectionLost, false, 0},
		{Fault{Kind: DropConnection, Applied: true}, connectionLost, true, 0},
		{Fault{Kind: Slow, Delay: 30 * time.Millisecond}, func(err error) bool { return err == nil }, true, 0},
		{Fault{Kind: Slow, Delay: 300 * time.Millisecond}, func(err error) bool { return errors.Is(err, gocql.ErrTimeoutNoResponse) }, true, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%v applied=%v delay=%v", tt.fault.Kind, tt.fault.Applied, tt.fault.Delay)
		t.Run(name, func(t *testing.T) {
			srv, sess := startServer(t, Options{}, func(cl *gocql.ClusterConfig) {
				if tt.timeout > 0 {
					cl.Timeout = tt.timeout
				}
			})
			applySchema(t, sess, schemas.ReplicationOptions{})
			ctx := context.Background()
			if err := insertQuery(sess, schemas.MetaRow{Name: "warm", Value: []byte("{}")}.Cell(), 0).ExecContext(ctx); err != nil {
				t.Fatal(err)
			}
			srv.InjectFault(Fault{Kind: tt.fault.Kind, Table: "term_index"}) // matches nothing written here
			srv.ClearFaults()
			f := tt.fault
			f.Table = "metadata"
			srv.InjectFault(f)
			err := insertQuery(sess, schemas.MetaRow{Name: "x", Value: []byte("{}")}.Cell(), 0).ExecContext(ctx)
			if !tt.check(err) {
				t.Fatalf("write answered %v (%T)", err, err)
			}
			if got := srv.Stats().Faults[tt.fault.Kind]; got != 1 {
				t.Errorf("faults served = %d, want 1", got)
			}
			if srv.PendingFaults() != 0 {
				t.Error("the fault is still queued")
			}
			// A slow write lands after the client gave up: wait for it.
			srv.WaitIdle()
			cells, err := srv.Cells(ks, schemas.TableMeta)
			if err != nil {
				t.Fatal(err)
			}
			if stored := len(cells) == 2; stored != tt.stored {
				t.Errorf("row stored = %v, want %v", stored, tt.stored)
			}
		})
	}
}

func connectionLost(err error) bool {
	return errors.Is(err, gocql.ErrConnectionClosed) || errors.Is(err, io.EOF)
}

func isCode(code int) func(error) bool {
	return func(err error) bool {
		var re gocql.RequestError
		return errors.As(err, &re) && re.Code() == code
	}
}

// TestSelectStar: SELECT * FROM a project table, named with its keyspace
// or after USE, gives its rows in the catalog's columns; LIMIT bounds them.
func TestSelectStar(t *testing.T) {
	srv, sess := startServer(t, Options{}, nil)
	applySchema(t, sess, schemas.ReplicationOptions{})
	for _, name := range []string{"a", "b", "c"} {
		if err := insertQuery(sess, schemas.MetaRow{Name: name, Value: []byte(`{}`)}.Cell(), 0).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	count := func(c *rawConn, stream int16, text string) (int, []string) {
		t.Helper()
		c.send(protoVersion, stream, opQuery, queryBody(text))
		h, r := c.recv()
		if h.opcode != opResult || r.int() != resultRows {
			t.Fatalf("%s: opcode %d, want ROWS", text, h.opcode)
		}
		res := readRows(t, r)
		return len(res.rows), res.names
	}
	c := dialRaw(t, srv)
	c.send(protoVersion, 0, opStartup, stringMapBody(map[string]string{"CQL_VERSION": "3.0.0"}))
	c.recv()
	if n, names := count(c, 1, "SELECT * FROM "+ks+".metadata"); n != 3 || !slices.Equal(names, []string{"name", "value"}) {
		t.Errorf("SELECT *: %d rows, columns %v; want 3 rows of name, value", n, names)
	}
	if n, _ := count(c, 2, "select * from "+ks+".metadata limit 2;"); n != 2 {
		t.Errorf("SELECT * ... LIMIT 2: %d rows", n)
	}
	c.send(protoVersion, 3, opQuery, queryBody("SELECT * FROM metadata"))
	if h, r := c.recv(); h.opcode != opError || r.int() != codeInvalid {
		t.Errorf("SELECT * without a keyspace: opcode %d, want an Invalid error", h.opcode)
	}
	c.send(protoVersion, 4, opQuery, queryBody("USE "+ks))
	c.recv()
	if n, _ := count(c, 5, "SELECT * FROM metadata"); n != 3 {
		t.Errorf("SELECT * after USE: %d rows, want 3", n)
	}
	c.send(protoVersion, 6, opQuery, queryBody("SELECT * FROM "+ks+".nosuchtable"))
	if h, r := c.recv(); h.opcode != opError || r.int() != codeInvalid {
		t.Errorf("SELECT * of an unknown table: opcode %d, want an Invalid error", h.opcode)
	}
}

// TestServersGetFreshAddresses: servers started one after another, each
// closed before the next starts, all listen on different addresses. The
// kernel hands a closed server's port out again (about one listen in four
// here), and cassandraio's session for that address, which a pipeline run
// leaves open, would take the new server for the old one: the pipelines'
// tests failed now and then with "apply schema: gocql: no hosts available
// in the pool" (CI, and 1 run in 70 of TestCassandraMatchesStore and
// TestScrubGeoOfOneOfACollidingPair on a loaded machine).
func TestServersGetFreshAddresses(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		srv, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if seen[srv.Addr()] {
			t.Fatalf("a server listens on %s, as one closed before it did", srv.Addr())
		}
		seen[srv.Addr()] = true
		srv.Close()
	}
}
