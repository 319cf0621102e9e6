package cassandraio

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/schemas"
)

// testRoundTrip writes cells, reads every table back through the driver
// and checks that the tables hold exactly the cells written, byte for byte,
// and that a dump in key order equals the embedded store's.
func testRoundTrip(t *testing.T, tg *target) {
	cells := testCells(300, 1)
	// Rewrites: a frequency row with a newer total, a raw row again.
	var update schemas.Cell
	for _, c := range cells {
		if c.Table == schemas.TableFrequency {
			r, _ := schemas.DecodeFrequency(c.Key, c.Value)
			r.Count += 1000
			update = r.Cell()
			break
		}
	}
	cells = append(cells, update, cells[0])
	if _, err := writeAll(t, tg.cfg, cells); err != nil {
		t.Fatal(err)
	}
	want := expected(cells)

	ctx := context.Background()
	r, err := NewReader(tg.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, table := range schemas.Tables {
		checkTable(t, table, want[table], readCells(t, r, table))
	}
	if tg.srv != nil {
		checkServer(t, tg, want)
	}

	// The same cells in the embedded store dump to the same bytes in the
	// same order.
	st, err := storeio.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Write(cells); err != nil {
		t.Fatal(err)
	}
	for _, table := range schemas.Tables {
		var fromStore, fromCQL bytes.Buffer
		dump := func(b *bytes.Buffer) func(k, v []byte) error {
			return func(k, v []byte) error { fmt.Fprintf(b, "%x=%x\n", k, v); return nil }
		}
		if err := st.Scan(ctx, table, nil, nil, dump(&fromStore)); err != nil {
			t.Fatal(err)
		}
		if err := r.Scan(ctx, table, nil, nil, dump(&fromCQL)); err != nil {
			t.Fatal(err)
		}
		if fromStore.String() != fromCQL.String() {
			t.Errorf("%s: the Cassandra dump differs from the embedded store's", table.Name())
		}
	}

	// Point reads and partition reads.
	for _, c := range cells[:50] {
		v, ok, err := r.Get(ctx, c.Table, c.Key)
		if err != nil || !ok || string(v) != want[c.Table][string(c.Key)] {
			t.Fatalf("Get(%s %q) = %q, %v, %v", c.Table.Name(), c.Key, v, ok, err)
		}
	}
	if _, ok, err := r.Get(ctx, schemas.TableRaw, make([]byte, schemas.RawKeyLen)); ok || err != nil {
		t.Errorf("Get of a missing row = %v, %v", ok, err)
	}
	var term schemas.Cell
	for _, c := range cells {
		if c.Table == schemas.TableTerms && bytes.HasPrefix(c.Key, []byte("the\x00text\x00")) {
			term = c
			break
		}
	}
	termRow, _ := schemas.DecodeTerm(term.Key, term.Value)
	var part []schemas.Cell
	if err := r.ScanPartition(ctx, schemas.TableTerms, term.Key, func(c schemas.Cell) error { part = append(part, c); return nil }); err != nil {
		t.Fatal(err)
	}
	n := 0
	for k := range want[schemas.TableTerms] {
		tr, _ := schemas.DecodeTerm([]byte(k), nil)
		if tr.Term == "the" && tr.Field == "text" && tr.Key.Seconds()/3600 == termRow.Key.Seconds()/3600 {
			n++
		}
	}
	if len(part) != n || n == 0 {
		t.Errorf("partition of %q in hour %d: %d rows, want %d", "the", termRow.Key.Seconds()/3600, len(part), n)
	}
	for i := 1; i < len(part); i++ {
		if bytes.Compare(part[i-1].Key, part[i].Key) >= 0 {
			t.Fatalf("partition rows out of time order at %d", i)
		}
	}
}

func TestRoundTrip(t *testing.T) { testRoundTrip(t, newServerTarget(t, nil)) }

// Small pages exercise paging of full scans and partitions.
func TestRoundTripSmallPages(t *testing.T) {
	testRoundTrip(t, newServerTarget(t, func(c *Config) { c.PageSize = 7; c.MaxBatchRows = 3 }))
}

func TestApplySchemaIsIdempotent(t *testing.T) {
	tg := newServerTarget(t, nil)
	repl, _ := schemas.ParseReplication("dc1=3")
	for i := 0; i < 2; i++ {
		if err := ApplySchema(context.Background(), tg.cfg, repl); err != nil {
			t.Fatalf("apply %d: %v", i+1, err)
		}
	}
	if got, _ := tg.srv.Replication(tg.cfg.Keyspace); got.String() != "SimpleStrategy:1" {
		t.Errorf("re-applying changed the replication of the existing keyspace to %s", got)
	}
	bad := tg.cfg
	bad.Keyspace = "Bad-Name"
	if err := ApplySchema(context.Background(), bad, repl); err == nil {
		t.Error("ApplySchema accepted an invalid keyspace")
	}
}

// faultCases are the faults of the fault tests: each hits Count write
// requests while a whole data set is written.
var faultCases = []struct {
	name    string
	fault   cassandratest.Fault
	timeout time.Duration // client timeout, if not the default
}{
	{"write timeout", cassandratest.Fault{Kind: cassandratest.WriteTimeout, Count: 8}, 0},
	{"write timeout after applying", cassandratest.Fault{Kind: cassandratest.WriteTimeout, Count: 8, Applied: true}, 0},
	{"unavailable", cassandratest.Fault{Kind: cassandratest.Unavailable, Count: 8}, 0},
	{"overloaded", cassandratest.Fault{Kind: cassandratest.Overloaded, Count: 8}, 0},
	{"dropped connection", cassandratest.Fault{Kind: cassandratest.DropConnection, Count: 3}, 0},
	{"dropped connection after applying", cassandratest.Fault{Kind: cassandratest.DropConnection, Count: 3, Applied: true}, 0},
	{"slow answers", cassandratest.Fault{Kind: cassandratest.Slow, Count: 8, Delay: 20 * time.Millisecond}, 0},
	{"slower than the client timeout", cassandratest.Fault{Kind: cassandratest.Slow, Count: 4, Delay: 400 * time.Millisecond}, 150 * time.Millisecond},
}

// TestWriterSurvivesFaults writes a data set while the server injects each
// fault, and checks that every row arrives exactly once per key with its
// value, that Flush waited for all of it, and that the retries were made.
func TestWriterSurvivesFaults(t *testing.T) {
	cells := testCells(200, 2)
	want := expected(cells)
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			tg := newServerTarget(t, func(c *Config) {
				if tc.timeout > 0 {
					c.Timeout = tc.timeout
				}
			})
			tg.srv.InjectFault(tc.fault)
			st, err := writeAll(t, tg.cfg, cells)
			if err != nil {
				t.Fatalf("write under %s: %v", tc.name, err)
			}
			// Read right after Flush, without waiting: Flush returned only
			// after every row was acknowledged.
			checkServer(t, tg, want)
			sst := tg.srv.Stats()
			served := sst.Faults[tc.fault.Kind]
			if served != int64(tc.fault.Count) {
				t.Errorf("faults served = %d, want %d", served, tc.fault.Count)
			}
			minRetries := served
			if tc.fault.Kind == cassandratest.Slow && tc.timeout == 0 {
				minRetries = 0 // slow but in time: no retry needed
			}
			if st.Retries < minRetries {
				t.Errorf("writer retried %d times for %d faults", st.Retries, served)
			}
			// Accounting: every row counted once, however often it was sent.
			if st.Rows != int64(len(cells)) {
				t.Errorf("writer acknowledged %d rows, want %d", st.Rows, len(cells))
			}
			if tc.fault.Applied && sst.RowsReplaced == 0 {
				t.Error("no row was rewritten, though writes were applied before failing")
			}
			t.Logf("%-34s faults served %d, writer retries %d, requests %d, rows %d, server rows replaced %d",
				tc.name, served, st.Retries, st.Requests, st.Rows, sst.RowsReplaced)
		})
	}
}

// TestWriterWithoutRetriesFails is the fault test with retries disabled:
// every fault then fails the write, and Flush reports it. (It shows that
// TestWriterSurvivesFaults passes because of the retries.)
func TestWriterWithoutRetriesFails(t *testing.T) {
	cells := testCells(100, 3)
	for _, tc := range faultCases {
		if tc.fault.Kind == cassandratest.Slow && tc.timeout == 0 {
			continue // slow but in time is no failure
		}
		t.Run(tc.name, func(t *testing.T) {
			tg := newServerTarget(t, func(c *Config) {
				c.MaxRetries = 0
				if tc.timeout > 0 {
					c.Timeout = tc.timeout
				}
			})
			tg.srv.InjectFault(tc.fault)
			st, err := writeAll(t, tg.cfg, cells)
			if err == nil {
				t.Fatalf("write under %s without retries succeeded", tc.name)
			}
			if !strings.Contains(err.Error(), "failed after 1 attempt(s)") {
				t.Errorf("error does not say the write failed: %v", err)
			}
			if st.Retries != 0 {
				t.Errorf("retried %d times with MaxRetries 0", st.Retries)
			}
		})
	}
}

// TestFlushWaitsForAcknowledgement holds every answer back: rows are on
// the server the moment Flush returns, and not before they were sent.
func TestFlushWaitsForAcknowledgement(t *testing.T) {
	tg := newServerTarget(t, nil)
	tg.srv.InjectFault(cassandratest.Fault{Kind: cassandratest.Slow, Count: -1, Delay: 60 * time.Millisecond})
	cells := testCells(40, 4)
	w, err := NewWriter(tg.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := w.Write(ctx, cells); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Rows != int64(len(cells)) {
		t.Errorf("acknowledged %d rows after Flush, want %d", st.Rows, len(cells))
	}
	checkServer(t, tg, expected(cells))
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestWriterBoundsRequestsInFlight(t *testing.T) {
	tg := newServerTarget(t, func(c *Config) { c.MaxInFlight = 3; c.SinglePartitionRequests = true })
	tg.srv.InjectFault(cassandratest.Fault{Kind: cassandratest.Slow, Count: -1, Delay: 10 * time.Millisecond})
	var cells []schemas.Cell
	for i := 0; i < 60; i++ { // 60 partitions, one request each: 60 requests
		cells = append(cells, schemas.MetaRow{Name: fmt.Sprint("n", i), Value: []byte("{}")}.Cell())
	}
	if _, err := writeAll(t, tg.cfg, cells); err != nil {
		t.Fatal(err)
	}
	if got := tg.srv.Stats().MaxConcurrentWrites; got > 3 || got < 2 {
		t.Errorf("server saw up to %d concurrent writes, want 2 or 3 (MaxInFlight 3)", got)
	}
}

// groupingCells returns three term partitions (10, 130 and 1 rows), five
// metadata partitions and 20 raw tweets of 4000 bytes in one partition.
func groupingCells() []schemas.Cell {
	var cells []schemas.Cell
	at := time.Date(2018, 10, 10, 20, 0, 0, 0, time.UTC).Unix()
	for i, n := range []int{10, 130, 1} { // three term partitions
		for j := 0; j < n; j++ {
			k := schemas.NewRowKey(at+int64(j), []byte(fmt.Sprint(i, j)))
			cells = append(cells, schemas.TermRow{Term: fmt.Sprint("term", i), Field: "text", Key: k}.Cell())
		}
	}
	for i := 0; i < 5; i++ { // five metadata partitions
		cells = append(cells, schemas.MetaRow{Name: fmt.Sprint("m", i), Value: []byte("1")}.Cell())
	}
	// 20 raw tweets of 4000 bytes in one partition (one minute, one bucket):
	// 4 fit in 16 KiB.
	var raw []schemas.Cell
	for j := 0; len(raw) < 20; j++ {
		js := []byte(fmt.Sprintf("%04d%s", j, strings.Repeat("x", 3996)))
		k := schemas.NewRowKey(at, js)
		if schemas.Murmur2(k[:])%schemas.RawBuckets == 0 {
			raw = append(raw, schemas.RawRow{Key: k, JSON: js}.Cell())
		}
	}
	return append(cells, raw...)
}

func TestWriterGroupsByPartition(t *testing.T) {
	tg := newServerTarget(t, func(c *Config) { c.MaxBatchRows = 64; c.MaxBatchBytes = 16 << 10; c.SinglePartitionRequests = true })
	cells := groupingCells()
	st, err := writeAll(t, tg.cfg, cells)
	if err != nil {
		t.Fatal(err)
	}
	// Terms: 1 + 3 (64+64+2) + 1 requests, 4 of them batches; metadata: 5
	// single inserts; raw: 5 batches of 4.
	if st.Requests != 15 || st.Batches != 9 || st.Rows != int64(len(cells)) {
		t.Errorf("requests, batches, rows = %d, %d, %d; want 15, 9, %d", st.Requests, st.Batches, st.Rows, len(cells))
	}
	if got := tg.srv.Stats().Batches; got != 9 {
		t.Errorf("server received %d BATCH requests, want 9", got)
	}
	checkServer(t, tg, expected(cells))
}

// TestWriterPacksPartitions: the partitions pending at a flush go
// together, several to a request, up to MaxMultiPartitionBytes; a full
// partition, or one of that size, goes alone.
func TestWriterPacksPartitions(t *testing.T) {
	tg := newServerTarget(t, func(c *Config) { c.MaxBatchRows = 64; c.MaxBatchBytes = 16 << 10; c.MaxMultiPartitionBytes = 8 << 10 })
	cells := groupingCells()
	st, err := writeAll(t, tg.cfg, cells)
	if err != nil {
		t.Fatal(err)
	}
	// Sent full while writing: 2 term batches of 64 and 4 raw batches of
	// 4. At the flush: the last 4 raw tweets (16 KB) alone, and the 13
	// other term rows and the 5 metadata rows (7 partitions, 2 KB) in one
	// batch.
	if st.Requests != 8 || st.Batches != 8 || st.Rows != int64(len(cells)) {
		t.Errorf("requests, batches, rows = %d, %d, %d; want 8, 8, %d", st.Requests, st.Batches, st.Rows, len(cells))
	}
	if got := tg.srv.Stats().Batches; got != 8 {
		t.Errorf("server received %d BATCH requests, want 8", got)
	}
	checkServer(t, tg, expected(cells))
}

// TestWriterPacksByOwner: with a ring of several nodes, a request holds
// only partitions that one node owns, no more bytes than
// MaxMultiPartitionBytes unless it is one partition's, and every pending
// row goes in exactly one request.
func TestWriterPacksByOwner(t *testing.T) {
	cfg := DefaultConfig("127.0.0.1").WithDefaults()
	cfg.MaxMultiPartitionBytes = 2 << 10
	w := &Writer{cfg: cfg, groups: map[string]*group{}, ttl: 0}
	w.ring = newRing([]hostTokens{
		{"org.apache.cassandra.dht.Murmur3Partitioner", []string{"-6000000000000000000", "1000000000000000000"}},
		{"org.apache.cassandra.dht.Murmur3Partitioner", []string{"-2000000000000000000", "5000000000000000000"}},
		{"", []string{"3000000000000000000", "8000000000000000000"}},
	})
	if w.ring == nil {
		t.Fatal("no ring")
	}
	cells := testCells(50, 3)
	owners := map[int32]int{}
	for _, c := range cells {
		vals, err := schemas.CQLValues(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, w.ttl)
		key := string(schemas.AppendCQLPartition(nil, c, vals))
		g := w.groups[key]
		if g == nil {
			g = &group{table: c.Table, owner: w.owner(c.Table, vals)}
			w.groups[key] = g
			owners[g.owner]++
		}
		g.add(c.Key, w.encode(c.Table, vals), false, len(c.Key)+len(c.Value)+rowOverhead)
	}
	if len(owners) != 3 {
		t.Fatalf("partitions by owner: %v, want partitions on each of the 3 nodes", owners)
	}
	seen := map[*group]bool{}
	rows := 0
	for _, r := range w.pack() {
		for _, g := range r.groups {
			if g.owner != r.groups[0].owner {
				t.Errorf("request %s holds partitions of nodes %d and %d", r, r.groups[0].owner, g.owner)
			}
			if seen[g] {
				t.Errorf("partition in two requests")
			}
			seen[g] = true
			rows += len(g.rows)
		}
		if len(r.groups) > 1 && r.bytes > cfg.MaxMultiPartitionBytes {
			t.Errorf("request %s: %d bytes, more than %d", r, r.bytes, cfg.MaxMultiPartitionBytes)
		}
	}
	if len(w.groups) != 0 || rows != len(cells) {
		t.Errorf("pack left %d partitions and took %d rows of %d", len(w.groups), rows, len(cells))
	}
}

func TestWriterConsistencyAndTTL(t *testing.T) {
	tg := newServerTarget(t, func(c *Config) { c.Consistency = "ONE"; c.TTL = 90 * time.Minute })
	cells := testCells(20, 5)
	st, err := writeAll(t, tg.cfg, cells)
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.srv.Stats().WriteConsistency; got["ONE"] != st.Requests || len(got) != 1 {
		t.Errorf("write consistency levels seen = %v, want ONE for all %d requests", got, st.Requests)
	}
	for _, ct := range schemas.CQLTables() {
		rows, err := tg.srv.Rows(tg.cfg.Keyspace, ct.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.TTL != 5400 {
				t.Fatalf("%s row has TTL %d, want 5400", ct.Name, r.TTL)
			}
		}
	}
}

// TestWriterKeepsLatestValue: a key rewritten before its request is sent
// keeps the later value; a request retried after a newer write of its key
// does not overwrite it (its write timestamp is kept across retries).
func TestWriterKeepsLatestValue(t *testing.T) {
	tg := newServerTarget(t, func(c *Config) {
		c.MaxBatchRows = 1 // every row is sent at once
		c.MinBackoff, c.MaxBackoff = 300*time.Millisecond, 300*time.Millisecond
	})
	ctx := context.Background()
	w, err := NewWriter(tg.cfg)
	if err != nil {
		t.Fatal(err)
	}
	row := func(n int64) schemas.Cell {
		return schemas.FrequencyRow{Minute: "201810102019", Lang: "en", Count: n}.Cell()
	}
	// The first write fails and is retried 300ms later; the second is
	// sent in the meantime and succeeds.
	tg.srv.InjectFault(cassandratest.Fault{Kind: cassandratest.WriteTimeout})
	if err := w.Write(ctx, []schemas.Cell{row(1)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, []schemas.Cell{row(5)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Retries != 1 {
		t.Errorf("retries = %d, want 1", st.Retries)
	}
	checkServer(t, tg, expected([]schemas.Cell{row(1), row(5)}))

	// Within one batch, the later value replaces the earlier one.
	tg2 := newServerTarget(t, nil)
	st, err := writeAll(t, tg2.cfg, []schemas.Cell{row(1), row(7), row(3)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 1 {
		t.Errorf("wrote %d rows of one key, want 1", st.Rows)
	}
	checkServer(t, tg2, expected([]schemas.Cell{row(3)}))
}

func TestWriterRejectsCellsTheTablesCannotHold(t *testing.T) {
	tg := newServerTarget(t, nil)
	w, err := NewWriter(tg.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(context.Background())
	bad := schemas.Cell{Table: schemas.TableTerms, Key: []byte("a\x00text\x00short"), Value: nil}
	if err := w.Write(context.Background(), []schemas.Cell{bad}); err == nil {
		t.Error("Write accepted a malformed terms cell")
	}
}

// A keyspace without the schema is not a transient error: the write fails
// at once, naming the problem, instead of retrying.
func TestWriterFailsFastWithoutSchema(t *testing.T) {
	tg := newServerTarget(t, nil)
	cfg := tg.cfg
	cfg.Keyspace = "not_applied"
	st, err := writeAll(t, cfg, testCells(3, 8))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("write to a keyspace without schema: %v", err)
	}
	if st.Retries != 0 {
		t.Errorf("retried %d times a non-retriable error", st.Retries)
	}
}

// TestCopyKeyspace copies a keyspace into a new one: the copy holds every
// cell of every table, byte for byte; copying onto itself is refused.
func TestCopyKeyspace(t *testing.T) {
	tg := newServerTarget(t, nil)
	cells := testCells(150, 3)
	if _, err := writeAll(t, tg.cfg, cells); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	to := tg.cfg
	to.Keyspace = "tweetindex_copy"
	if err := ApplySchema(ctx, to, schemas.ReplicationOptions{}); err != nil {
		t.Fatal(err)
	}
	copied, err := CopyKeyspace(ctx, to, tg.cfg.Keyspace)
	if err != nil {
		t.Fatal(err)
	}
	want := expected(cells)
	for _, table := range schemas.Tables {
		if copied[table] != int64(len(want[table])) {
			t.Errorf("%s: %d rows copied, want %d", table.Name(), copied[table], len(want[table]))
		}
		got, err := tg.srv.Cells(to.Keyspace, table)
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, table, want[table], got)
	}
	if _, err := CopyKeyspace(ctx, to, to.Keyspace); err == nil {
		t.Error("CopyKeyspace copied a keyspace onto itself")
	}
}
