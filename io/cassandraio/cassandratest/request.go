package cassandratest

import (
	"encoding/binary"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// params are the <query_parameters> of QUERY and EXECUTE (section 4.1.4).
type params struct {
	cl          uint16
	flags       byte
	values      [][]byte
	unset       []bool // nil when no value is unset
	pageSize    int32
	pagingState []byte
	timestamp   int64 // microseconds; 0: none given
}

func readParams(r *reader) params {
	var p params
	p.cl = r.short()
	p.flags = r.byte()
	if p.flags&qfNamesForValues != 0 {
		r.fail(errInvalid("named bind values are not supported; bind by position"))
		return p
	}
	if p.flags&qfValues != 0 {
		p.values, p.unset = readValues(r)
	}
	if p.flags&qfPageSize != 0 {
		p.pageSize = r.int()
	}
	if p.flags&qfPagingState != 0 {
		p.pagingState = r.bytes()
	}
	if p.flags&qfSerialConsistency != 0 {
		r.short()
	}
	if p.flags&qfDefaultTimestamp != 0 {
		p.timestamp = r.long()
	}
	return p
}

func readValues(r *reader) ([][]byte, []bool) {
	n := int(r.short())
	values := make([][]byte, n)
	var unset []bool
	for i := 0; i < n && r.err == nil; i++ {
		v, u := r.value()
		values[i] = v
		if u {
			if unset == nil {
				unset = make([]bool, n)
			}
			unset[i] = true
		}
	}
	return values, unset
}

// request answers QUERY, PREPARE, EXECUTE and BATCH. A nil answer means
// the connection was dropped.
func (c *conn) request(h header, body []byte) []byte {
	r := &reader{b: body}
	if h.flags&flagPayload != 0 {
		r.bytesMap()
	}
	var ans []byte
	var err *cqlError
	switch h.opcode {
	case opQuery:
		c.srv.stats.queries.Add(1)
		text := r.longString()
		p := readParams(r)
		c.srv.trace("QUERY", text)
		if err = readErr(r); err == nil {
			var st *stmt
			if st, err = c.srv.resolve(text, c.currentKeyspace()); err == nil {
				ans, err = c.execute(h.stream, st, p)
			}
		}
	case opPrepare:
		c.srv.stats.prepares.Add(1)
		text := r.longString()
		c.srv.trace("PREPARE", text)
		if err = readErr(r); err == nil {
			var st *stmt
			if st, err = c.srv.resolve(text, c.currentKeyspace()); err == nil {
				c.srv.mu.Lock()
				c.srv.prepared[st.id] = st
				c.srv.mu.Unlock()
				ans = preparedResult(h.stream, st)
			}
		}
	case opExecute:
		c.srv.stats.executes.Add(1)
		id := r.shortBytes()
		p := readParams(r)
		if err = readErr(r); err == nil {
			var st *stmt
			if st, err = c.srv.prepared1(id); err == nil {
				ans, err = c.execute(h.stream, st, p)
			}
		}
	case opBatch:
		c.srv.stats.batches.Add(1)
		ans, err = c.batch(h.stream, r)
	}
	if err != nil {
		return err.frame(h.stream)
	}
	return ans
}

// trace logs a statement received, under Options.Trace.
func (s *Server) trace(op, text string) {
	if s.opts.Trace {
		s.logf("cassandratest: %s %q", op, text)
	}
}

func readErr(r *reader) *cqlError {
	if r.err == nil {
		return nil
	}
	if e, ok := r.err.(*cqlError); ok {
		return e
	}
	return errProtocol("malformed request: %v", r.err)
}

func (s *Server) prepared1(id []byte) (*stmt, *cqlError) {
	var key [16]byte
	if len(id) != len(key) {
		return nil, errUnprepared(id)
	}
	copy(key[:], id)
	s.mu.Lock()
	st := s.prepared[key]
	s.mu.Unlock()
	if st == nil {
		return nil, errUnprepared(id)
	}
	return st, nil
}

// dropped is returned by a write that dropped its connection.
var dropped = &cqlError{code: -1, msg: "connection dropped"}

// execute runs one statement and returns its RESULT frame.
func (c *conn) execute(stream int16, st *stmt, p params) ([]byte, *cqlError) {
	switch {
	case st.use != "":
		if c.srv.store.keyspace(st.use) == nil {
			return nil, errInvalid("Keyspace '%s' does not exist", st.use)
		}
		c.setKeyspace(st.use)
		w := newFrame(stream, opResult)
		w.int(resultSetKeyspace)
		w.string(st.use)
		return w.finish(), nil
	case st.sys != nil:
		if err := checkBinds(st, p); err != nil {
			return nil, err
		}
		return rowsResult(stream, st, p, st.sys.rows(c.srv, c.nc.LocalAddr(), p.values), nil), nil
	case st.isWrite():
		c.srv.stats.writes.Add(1)
		ins := insert{st: st, values: p.values, unset: p.unset}
		if err := c.srv.checkInsert(&ins, p.cl); err != nil {
			return nil, err
		}
		if err := c.write(p.cl, p.timestamp, "SIMPLE", []insert{ins}); err != nil {
			if err == dropped {
				return nil, nil
			}
			return nil, err
		}
		return voidResult(stream), nil
	case st.isSelect():
		return c.srv.selectRows(stream, st, p)
	}
	return c.srv.schemaChange(stream, st)
}

// insert is one INSERT of a request, checked.
type insert struct {
	st     *stmt
	table  *table
	values [][]byte
	unset  []bool
	ttl    int32
}

// checkInsert validates an insert as Cassandra does before writing.
func (s *Server) checkInsert(ins *insert, cl uint16) *cqlError {
	if cl == clSerial || cl == clLocalSerial {
		return errInvalid("You must use conditional updates for serializable writes")
	}
	if int(cl) >= len(consistencyNames) {
		return errProtocol("unknown consistency level 0x%04x", cl)
	}
	if err := checkBinds(ins.st, params{values: ins.values}); err != nil {
		return err
	}
	cat := ins.st.cat
	t, err := s.store.table(cat.Keyspace, cat.Table.Name)
	if err != nil {
		return err.(*cqlError)
	}
	ins.table = t
	cols := cat.Table.Columns()
	if cat.Kind == schemas.CQLDelete {
		for i, col := range cols[:cat.Table.KeyColumns()] {
			if ins.values[i] == nil || (ins.unset != nil && ins.unset[i]) {
				return errInvalid("Invalid null or unset value for primary key column %s", col.Name)
			}
			if e := validate(col.Type, ins.values[i]); e != nil {
				return errInvalid("Invalid value for column %s: %v", col.Name, e)
			}
		}
		return nil
	}
	for i, col := range cols {
		v := ins.values[i]
		unset := ins.unset != nil && ins.unset[i]
		if i < cat.Table.KeyColumns() && (v == nil || unset) {
			return errInvalid("Invalid null or unset value for primary key column %s", col.Name)
		}
		if v != nil {
			if e := validate(col.Type, v); e != nil {
				return errInvalid("Invalid value for column %s: %v", col.Name, e)
			}
		}
	}
	ttl := ins.values[len(cols)]
	if ttl != nil {
		if len(ttl) != 4 {
			return errInvalid("Invalid TTL value: want 4 bytes, got %d", len(ttl))
		}
		ins.ttl = int32(binary.BigEndian.Uint32(ttl))
		if ins.ttl < 0 {
			return errInvalid("A TTL must be greater or equal to 0, but was %d", ins.ttl)
		}
		if ins.ttl > 630720000 {
			return errInvalid("ttl is too large. requested (%d) maximum (630720000)", ins.ttl)
		}
	}
	return nil
}

func checkBinds(st *stmt, p params) *cqlError {
	if len(p.values) != len(st.binds) {
		return errInvalid("There were %d markers(?) in CQL but %d bound variables", len(st.binds), len(p.values))
	}
	return nil
}

// write applies the inserts of one write request, serving an injected
// fault first if one matches.
func (c *conn) write(cl uint16, ts int64, writeType string, inserts []insert) *cqlError {
	c.srv.begin(true)
	defer c.srv.end(true)
	c.srv.stats.writeCL[cl&15].Add(1)
	tables := make([]string, 0, 1)
	for _, ins := range inserts {
		tables = append(tables, ins.st.cat.Table.Name)
	}
	f, faulted := c.srv.takeFault(tables)
	if faulted {
		switch f.Kind {
		case Slow:
			t := time.NewTimer(f.Delay)
			select {
			case <-t.C:
			case <-c.done:
				t.Stop()
				return dropped
			}
		case WriteTimeout:
			if f.Applied {
				c.apply(ts, inserts)
			}
			return errWriteTimeout(cl, writeType)
		case Unavailable:
			return errUnavailable(cl)
		case Overloaded:
			return errOverloaded()
		case DropConnection:
			if f.Applied {
				c.apply(ts, inserts)
			}
			c.close()
			return dropped
		}
	}
	c.apply(ts, inserts)
	return nil
}

func (c *conn) apply(ts int64, inserts []insert) {
	now := c.srv.now()
	if ts == 0 {
		ts = now.UnixMicro()
	}
	for _, ins := range inserts {
		if ins.st.cat.Kind == schemas.CQLDelete {
			if ins.table.remove(ins.values, ts) {
				c.srv.stats.rowsDeleted.Add(1)
			}
			continue
		}
		n := len(ins.st.cat.Table.Columns())
		var unset []bool
		if ins.unset != nil {
			unset = ins.unset[:n]
		}
		applied, replaced := ins.table.upsert(ins.values[:n], unset, ts, ins.ttl, now.Unix())
		if applied {
			c.srv.stats.rowsWritten.Add(1)
		}
		if replaced {
			c.srv.stats.rowsReplaced.Add(1)
		}
	}
}

// batch answers BATCH (section 4.1.7): only UNLOGGED and LOGGED batches of
// catalog inserts.
func (c *conn) batch(stream int16, r *reader) ([]byte, *cqlError) {
	typ := r.byte()
	n := int(r.short())
	type entry struct {
		text   string
		id     []byte
		values [][]byte
		unset  []bool
	}
	entries := make([]entry, n)
	for i := 0; i < n && r.err == nil; i++ {
		switch r.byte() {
		case 0:
			entries[i].text = r.longString()
		case 1:
			entries[i].id = r.shortBytes()
		default:
			r.fail(errProtocol("BATCH: query kind must be 0 or 1"))
		}
		entries[i].values, entries[i].unset = readValues(r)
	}
	cl := r.short()
	flags := r.byte()
	if flags&qfNamesForValues != 0 {
		r.fail(errInvalid("named bind values are not supported in batches"))
	}
	if flags&qfSerialConsistency != 0 {
		r.short()
	}
	var ts int64
	if flags&qfDefaultTimestamp != 0 {
		ts = r.long()
	}
	if err := readErr(r); err != nil {
		return nil, err
	}
	if typ > 1 {
		return nil, errInvalid("counter batches are not supported: the catalog has no counters")
	}
	if n == 0 {
		return voidResult(stream), nil
	}
	c.srv.stats.writes.Add(1)
	inserts := make([]insert, n)
	for i, e := range entries {
		var st *stmt
		var err *cqlError
		if e.id != nil {
			st, err = c.srv.prepared1(e.id)
		} else {
			st, err = c.srv.resolve(e.text, c.currentKeyspace())
		}
		if err != nil {
			return nil, err
		}
		if !st.isWrite() {
			return nil, errInvalid("Invalid statement in batch: only INSERT and DELETE statements of the catalog are allowed: %q", st.text)
		}
		inserts[i] = insert{st: st, values: e.values, unset: e.unset}
		if err := c.srv.checkInsert(&inserts[i], cl); err != nil {
			return nil, err
		}
	}
	writeType := "UNLOGGED_BATCH"
	if typ == 0 {
		writeType = "BATCH"
	}
	if err := c.write(cl, ts, writeType, inserts); err != nil {
		if err == dropped {
			return nil, nil
		}
		return nil, err
	}
	return voidResult(stream), nil
}

// selectRows runs a catalog select, a page at a time.
func (s *Server) selectRows(stream int16, st *stmt, p params) ([]byte, *cqlError) {
	if p.cl == clAny {
		return nil, errInvalid("ANY ConsistencyLevel is only supported for writes")
	}
	if err := checkBinds(st, p); err != nil {
		return nil, err
	}
	cat := st.cat
	t, err := s.store.table(cat.Keyspace, cat.Table.Name)
	if err != nil {
		return nil, err.(*cqlError)
	}
	for i, b := range cat.Binds {
		if p.values[i] == nil {
			return nil, errInvalid("Invalid null value in condition for column %s", b.Name)
		}
		if e := validate(b.Type, p.values[i]); e != nil {
			return nil, errInvalid("Invalid value for column %s: %v", b.Name, e)
		}
	}
	now := s.now().Unix()
	var key []byte
	for i, b := range cat.Binds[:len(cat.PartitionKeyIndexes)] {
		key = appendOrdered(key, b.Type, p.values[i])
	}
	var rows [][][]byte
	var next []byte
	switch cat.Kind {
	case schemas.CQLSelectRow:
		pk, ck := t.keys(p.values)
		if r := t.get(now, pk, ck); r != nil {
			rows = append(rows, r.values)
		}
	case schemas.CQLSelectAll, schemas.CQLSelectPartition, schemas.CQLSelectSlice:
		var only *string
		if cat.Kind != schemas.CQLSelectAll {
			pk := string(key)
			only = &pk
		}
		var lo, hi string // the slice's bounds on the encoded clustering key
		if cat.Kind == schemas.CQLSelectSlice {
			n := len(cat.PartitionKeyIndexes)
			lo = string(appendOrdered(nil, cat.Binds[n].Type, p.values[n]))
			hi = string(appendOrdered(nil, cat.Binds[n+1].Type, p.values[n+1]))
		}
		var from *position
		if len(p.pagingState) > 0 {
			pos, err := decodePosition(p.pagingState)
			if err != nil || (only != nil && pos.pk != *only) {
				return nil, errProtocol("invalid paging state")
			}
			from = &pos
		}
		limit := int(p.pageSize)
		if st.limit > 0 {
			// SELECT * ... LIMIT n: n rows at most, in one page.
			if len(p.pagingState) > 0 {
				return rowsResult(stream, st, p, nil, nil), nil
			}
			limit = st.limit
		}
		var last position
		t.scan(now, only, from, lo, func(pk, ck string, r *row) bool {
			if hi != "" && ck >= hi {
				return false
			}
			if limit > 0 && len(rows) == limit {
				if st.limit == 0 {
					next = position{pk: last.pk, ck: last.ck}.encode()
				}
				return false
			}
			rows = append(rows, r.values)
			last = position{pk: pk, ck: ck}
			return true
		})
	}
	return rowsResult(stream, st, p, rows, next), nil
}

// schemaChange runs CREATE KEYSPACE, CREATE TABLE and DROP KEYSPACE.
func (s *Server) schemaChange(stream int16, st *stmt) ([]byte, *cqlError) {
	cat := st.cat
	var changed bool
	var target string
	switch cat.Kind {
	case schemas.CQLCreateKeyspace:
		changed, target = s.store.createKeyspace(cat.Keyspace, cat.Replication), "KEYSPACE"
	case schemas.CQLCreateTable:
		var err error
		changed, err = s.store.createTable(cat.Keyspace, cat.Table)
		if err != nil {
			return nil, err.(*cqlError)
		}
		target = "TABLE"
	case schemas.CQLDropKeyspace:
		changed, target = s.store.dropKeyspace(cat.Keyspace), "KEYSPACE"
	default:
		return nil, errServer("cannot execute %s", cat.Kind)
	}
	if !changed {
		return voidResult(stream), nil
	}
	change := func(w *writer) {
		if cat.Kind == schemas.CQLDropKeyspace {
			w.string("DROPPED")
		} else {
			w.string("CREATED")
		}
		w.string(target)
		w.string(cat.Keyspace)
		if target == "TABLE" {
			w.string(cat.Table.Name)
		}
	}
	// Section 4.2.6: registered connections get a SCHEMA_CHANGE event.
	s.mu.Lock()
	for c := range s.conns {
		if c.events.Load() {
			ev := newFrame(-1, opEvent)
			ev.string("SCHEMA_CHANGE")
			change(ev)
			go c.send(ev.finish())
		}
	}
	s.mu.Unlock()
	w := newFrame(stream, opResult)
	w.int(resultSchemaChange)
	change(w)
	return w.finish(), nil
}

func errServer(format string, args ...any) *cqlError {
	e := errInvalid(format, args...)
	e.code = codeServer
	return e
}

func voidResult(stream int16) []byte {
	w := newFrame(stream, opResult)
	w.int(resultVoid)
	return w.finish()
}

// writeSpecs writes <flags><columns_count>[<global_table_spec>]<col_spec_i>...
// (with pk indexes for bind metadata).
func writeSpecs(w *writer, st *stmt, specs []spec, flags int32, pkIndexes []int, withPK bool) {
	if len(specs) > 0 {
		flags |= mfGlobalTableSpec
	}
	w.int(flags)
	w.int(int32(len(specs)))
	if withPK {
		w.int(int32(len(pkIndexes)))
		for _, i := range pkIndexes {
			w.short(uint16(i))
		}
	}
	if len(specs) > 0 {
		w.string(st.specKeyspace)
		w.string(st.specTable)
		for _, c := range specs {
			w.string(c.name)
			c.typ.write(w)
		}
	}
}

func preparedResult(stream int16, st *stmt) []byte {
	w := newFrame(stream, opResult)
	w.int(resultPrepared)
	w.shortBytes(st.id[:])
	writeSpecs(w, st, st.binds, 0, st.pkIndexes, true)
	if st.isSelect() {
		writeSpecs(w, st, st.result, 0, nil, false)
	} else {
		w.int(mfNoMetadata)
		w.int(0)
	}
	return w.finish()
}

func rowsResult(stream int16, st *stmt, p params, rows [][][]byte, pagingState []byte) []byte {
	w := newFrame(stream, opResult)
	w.int(resultRows)
	var flags int32
	if pagingState != nil {
		flags |= mfHasMorePages
	}
	if p.flags&qfSkipMetadata != 0 {
		w.int(flags | mfNoMetadata)
		w.int(int32(len(st.result)))
		if pagingState != nil {
			w.bytes(pagingState)
		}
	} else {
		if len(st.result) > 0 {
			flags |= mfGlobalTableSpec
		}
		w.int(flags)
		w.int(int32(len(st.result)))
		if pagingState != nil {
			w.bytes(pagingState)
		}
		if len(st.result) > 0 {
			w.string(st.specKeyspace)
			w.string(st.specTable)
			for _, c := range st.result {
				w.string(c.name)
				c.typ.write(w)
			}
		}
	}
	w.int(int32(len(rows)))
	for _, r := range rows {
		for _, v := range r {
			w.bytes(v)
		}
	}
	return w.finish()
}
