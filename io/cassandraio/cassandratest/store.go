package cassandratest

import (
	"crypto/md5"
	"encoding/binary"
	"errors"
	"sort"
	"strconv"
	"sync"

	"github.com/tweetindex/tweetindex/schemas"
)

// store holds keyspaces and rows with Cassandra's primary-key semantics:
// an insert is an upsert of its primary key, the newer write time wins,
// rows of a partition come back in clustering order, and a row whose TTL
// has run out is gone.
type store struct {
	mu         sync.RWMutex
	keyspaces  map[string]*keyspace
	generation int // bumped by every schema change
}

type keyspace struct {
	name   string
	repl   schemas.ReplicationOptions
	tables map[string]*table
}

type table struct {
	def *schemas.CQLTable

	mu    sync.Mutex
	parts map[string]*partition
	order []string // sorted keys of parts, valid unless dirty
	dirty bool
}

type partition struct {
	rows  map[string]*row
	order []string // sorted clustering keys, valid unless dirty
	dirty bool
}

type row struct {
	values  [][]byte // every column, in the wire encoding; nil is null
	ts      int64    // write time, microseconds since 1970
	expires int64    // Unix second the row expires at; 0: never
	ttl     int32
}

func newStore() *store { return &store{keyspaces: map[string]*keyspace{}} }

// schemaVersion is the schema_version UUID of system.local.
func (s *store) schemaVersion() [16]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return md5.Sum([]byte("tweetindex schema " + strconv.Itoa(s.generation)))
}

func (s *store) keyspace(name string) *keyspace {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keyspaces[name]
}

func (s *store) table(ks, name string) (*table, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	k := s.keyspaces[ks]
	if k == nil {
		return nil, errInvalid("Keyspace %s does not exist", ks)
	}
	t := k.tables[name]
	if t == nil {
		return nil, errInvalid("unconfigured table %s", name)
	}
	return t, nil
}

func (s *store) createKeyspace(name string, repl schemas.ReplicationOptions) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keyspaces[name] != nil {
		return false
	}
	s.keyspaces[name] = &keyspace{name: name, repl: repl, tables: map[string]*table{}}
	s.generation++
	return true
}

func (s *store) createTable(ks string, def *schemas.CQLTable) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.keyspaces[ks]
	if k == nil {
		return false, errInvalid("Cannot add table '%s' to non existing keyspace '%s'.", def.Name, ks)
	}
	if k.tables[def.Name] != nil {
		return false, nil
	}
	k.tables[def.Name] = &table{def: def, parts: map[string]*partition{}}
	s.generation++
	return true, nil
}

func (s *store) dropKeyspace(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keyspaces[name] == nil {
		return false
	}
	delete(s.keyspaces, name)
	s.generation++
	return true
}

// keyspaceNames returns the user keyspaces, sorted.
func (s *store) keyspaceNames() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.keyspaces))
	for n := range s.keyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// keys returns the encoded partition and clustering keys of a row.
func (t *table) keys(values [][]byte) (pk, ck string) {
	var b []byte
	cols := t.def.Columns()
	np := len(t.def.PartitionKey)
	for i := 0; i < np; i++ {
		b = appendOrdered(b, cols[i].Type, values[i])
	}
	n := len(b)
	for i := np; i < t.def.KeyColumns(); i++ {
		b = appendOrdered(b, cols[i].Type, values[i])
	}
	return string(b[:n]), string(b[n:])
}

// upsert writes a row (every column; nil values are null, unset columns
// keep what the row held). It reports whether the write was applied (an
// older write time loses) and whether it replaced a live row.
func (t *table) upsert(values [][]byte, unset []bool, ts int64, ttl int32, now int64) (applied, replaced bool) {
	pk, ck := t.keys(values)
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[pk]
	if p == nil {
		p = &partition{rows: map[string]*row{}}
		t.parts[pk] = p
		t.dirty = true
	}
	old := p.rows[ck]
	live := old != nil && !old.expired(now)
	if live && old.ts > ts {
		return false, false
	}
	// One allocation for the row's bytes: the values point into the request.
	size := 0
	for _, v := range values {
		size += len(v)
	}
	buf := make([]byte, 0, size)
	r := &row{values: make([][]byte, len(values)), ts: ts, ttl: ttl}
	for i, v := range values {
		if unset != nil && unset[i] {
			if live {
				r.values[i] = old.values[i]
			}
			continue
		}
		if v != nil {
			buf = append(buf, v...)
			r.values[i] = buf[len(buf)-len(v) : len(buf) : len(buf)]
		}
	}
	if ttl > 0 {
		r.expires = now + int64(ttl)
	}
	if old == nil {
		p.dirty = true
	}
	p.rows[ck] = r
	return true, live
}

// remove deletes the row with the primary key values (an older delete
// than the row's write loses) and reports whether a row was there.
func (t *table) remove(values [][]byte, ts int64) bool {
	pk, ck := t.keys(values)
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[pk]
	if p == nil {
		return false
	}
	old := p.rows[ck]
	if old == nil || old.ts > ts {
		return false
	}
	delete(p.rows, ck)
	p.dirty = true
	if len(p.rows) == 0 {
		delete(t.parts, pk)
		t.dirty = true
	}
	return true
}

func (r *row) expired(now int64) bool { return r.expires != 0 && now >= r.expires }

// position is where a paged read resumes: after this row.
type position struct {
	pk, ck string
}

func (p position) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(len(p.pk)))
	b = append(b, p.pk...)
	return append(b, p.ck...)
}

func decodePosition(b []byte) (position, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return position{}, errors.New("malformed paging state")
	}
	return position{pk: string(b[w : w+int(n)]), ck: string(b[w+int(n):])}, nil
}

// scan calls fn for each live row in order (partition key order, then
// clustering order), restricted to partition pk when only is set, starting
// after from when it is not nil and at clustering key lo when only is set,
// until fn returns false.
func (t *table) scan(now int64, only *string, from *position, lo string, fn func(pk, ck string, r *row) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var pks []string
	if only != nil {
		if t.parts[*only] == nil {
			return
		}
		pks = []string{*only}
	} else {
		if t.dirty {
			t.order = t.order[:0]
			for k := range t.parts {
				t.order = append(t.order, k)
			}
			sort.Strings(t.order)
			t.dirty = false
		}
		pks = t.order
	}
	start := 0
	if from != nil {
		start = sort.SearchStrings(pks, from.pk)
	}
	for _, pk := range pks[start:] {
		p := t.parts[pk]
		if p.dirty {
			p.order = p.order[:0]
			for k := range p.rows {
				p.order = append(p.order, k)
			}
			sort.Strings(p.order)
			p.dirty = false
		}
		cks := p.order
		if lo != "" {
			cks = cks[sort.SearchStrings(cks, lo):]
		}
		if from != nil && pk == from.pk {
			i := sort.SearchStrings(cks, from.ck)
			if i < len(cks) && cks[i] == from.ck {
				i++
			}
			cks = cks[i:]
		}
		for _, ck := range cks {
			r := p.rows[ck]
			if r.expired(now) {
				continue
			}
			if !fn(pk, ck, r) {
				return
			}
		}
	}
}

// get returns the live row at (pk, ck), or nil.
func (t *table) get(now int64, pk, ck string) *row {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[pk]
	if p == nil {
		return nil
	}
	r := p.rows[ck]
	if r == nil || r.expired(now) {
		return nil
	}
	return r
}
