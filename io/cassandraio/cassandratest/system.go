package cassandratest

import (
	"crypto/md5"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tweetindex/tweetindex/schemas"
)

// The system tables drivers and cqlsh read: the node (system.local), its
// peers (none: this is a one-node cluster) and the schema (system_schema.*
// and Cassandra 4's system_virtual_schema.*), with Cassandra 4.1's columns
// and types, so that a driver that builds its schema metadata at connect
// (the DataStax drivers, cqlsh) finds every column it reads. The schema
// tables describe the system keyspaces and the project's own keyspaces and
// tables; there are no types, functions, aggregates, triggers, indexes,
// views or virtual tables. Only selects of the form
//
//	SELECT * | col, ... FROM ks.table [WHERE col = ?|'literal' [AND ...]] [ALLOW FILTERING]
//
// are served: what gocql and the DataStax Python driver issue at connect,
// on schema agreement and when they refresh metadata.

type sysColumn struct {
	name string
	typ  ctype
}

type sysTable struct {
	keyspace, name string
	columns        []sysColumn
	// rows returns the table's rows, one Go value per column (see encodeSystem).
	rows func(s *Server, local net.Addr) [][]any
}

func (t *sysTable) column(name string) int {
	for i, c := range t.columns {
		if c.name == name {
			return i
		}
	}
	return -1
}

var sysTables = map[string]*sysTable{}

// The columns of system_schema.tables and .views that hold table options.
var tableOptionColumns = []sysColumn{
	{"additional_write_policy", tText}, {"bloom_filter_fp_chance", tDouble}, {"caching", tMapText}, {"cdc", tBoolean},
	{"comment", tText}, {"compaction", tMapText}, {"compression", tMapText}, {"crc_check_chance", tDouble},
	{"default_time_to_live", tInt}, {"extensions", tMapBlob}, {"gc_grace_seconds", tInt}, {"id", tUUID},
	{"max_index_interval", tInt}, {"memtable", tText}, {"memtable_flush_period_in_ms", tInt}, {"min_index_interval", tInt},
	{"read_repair", tText}, {"speculative_retry", tText},
}

// schemaColumns are the columns of system_schema.columns and
// system_virtual_schema.columns.
var schemaColumns = []sysColumn{
	{"keyspace_name", tText}, {"table_name", tText}, {"column_name", tText}, {"clustering_order", tText},
	{"column_name_bytes", tBlob}, {"kind", tText}, {"position", tInt}, {"type", tText},
}

func init() {
	for _, t := range []*sysTable{
		{keyspace: "system", name: "local", columns: []sysColumn{
			{"key", tText}, {"bootstrapped", tText}, {"broadcast_address", tInet}, {"broadcast_port", tInt},
			{"cluster_name", tText}, {"cql_version", tText}, {"data_center", tText}, {"gossip_generation", tInt},
			{"host_id", tUUID}, {"listen_address", tInet}, {"listen_port", tInt}, {"native_protocol_version", tText},
			{"partitioner", tText}, {"rack", tText}, {"release_version", tText}, {"rpc_address", tInet},
			{"rpc_port", tInt}, {"schema_version", tUUID}, {"tokens", tSetText}, {"truncated_at", tMapUUID},
		}, rows: localRows},
		{keyspace: "system", name: "peers", columns: []sysColumn{
			{"peer", tInet}, {"data_center", tText}, {"host_id", tUUID}, {"preferred_ip", tInet}, {"rack", tText},
			{"release_version", tText}, {"rpc_address", tInet}, {"schema_version", tUUID}, {"tokens", tSetText},
		}, rows: noRows},
		{keyspace: "system", name: "peers_v2", columns: []sysColumn{
			{"peer", tInet}, {"peer_port", tInt}, {"data_center", tText}, {"host_id", tUUID}, {"native_address", tInet},
			{"native_port", tInt}, {"preferred_ip", tInet}, {"preferred_port", tInt}, {"rack", tText},
			{"release_version", tText}, {"schema_version", tUUID}, {"tokens", tSetText},
		}, rows: noRows},
		{keyspace: "system_schema", name: "keyspaces", columns: []sysColumn{
			{"keyspace_name", tText}, {"durable_writes", tBoolean}, {"replication", tMapText},
		}, rows: keyspaceRows},
		{keyspace: "system_schema", name: "tables", columns: append([]sysColumn{
			{"keyspace_name", tText}, {"table_name", tText}, {"flags", tSetText},
		}, tableOptionColumns...), rows: tableRows},
		{keyspace: "system_schema", name: "columns", columns: schemaColumns, rows: columnRows},
		{keyspace: "system_schema", name: "dropped_columns", columns: []sysColumn{
			{"keyspace_name", tText}, {"table_name", tText}, {"column_name", tText}, {"dropped_time", tTimestamp},
			{"kind", tText}, {"type", tText},
		}, rows: noRows},
		{keyspace: "system_schema", name: "views", columns: append([]sysColumn{
			{"keyspace_name", tText}, {"view_name", tText}, {"base_table_id", tUUID}, {"base_table_name", tText},
			{"include_all_columns", tBoolean}, {"where_clause", tText},
		}, tableOptionColumns...), rows: noRows},
		{keyspace: "system_schema", name: "indexes", columns: []sysColumn{
			{"keyspace_name", tText}, {"table_name", tText}, {"index_name", tText}, {"kind", tText}, {"options", tMapText},
		}, rows: noRows},
		{keyspace: "system_schema", name: "triggers", columns: []sysColumn{
			{"keyspace_name", tText}, {"table_name", tText}, {"trigger_name", tText}, {"options", tMapText},
		}, rows: noRows},
		{keyspace: "system_schema", name: "types", columns: []sysColumn{
			{"keyspace_name", tText}, {"type_name", tText}, {"field_names", tListTxt}, {"field_types", tListTxt},
		}, rows: noRows},
		{keyspace: "system_schema", name: "functions", columns: []sysColumn{
			{"keyspace_name", tText}, {"function_name", tText}, {"argument_types", tListTxt}, {"argument_names", tListTxt},
			{"body", tText}, {"called_on_null_input", tBoolean}, {"language", tText}, {"return_type", tText},
		}, rows: noRows},
		{keyspace: "system_schema", name: "aggregates", columns: []sysColumn{
			{"keyspace_name", tText}, {"aggregate_name", tText}, {"argument_types", tListTxt}, {"final_func", tText},
			{"initcond", tText}, {"return_type", tText}, {"state_func", tText}, {"state_type", tText},
		}, rows: noRows},
		{keyspace: "system_virtual_schema", name: "keyspaces", columns: []sysColumn{{"keyspace_name", tText}}, rows: noRows},
		{keyspace: "system_virtual_schema", name: "tables", columns: []sysColumn{
			{"keyspace_name", tText}, {"table_name", tText}, {"comment", tText},
		}, rows: noRows},
		{keyspace: "system_virtual_schema", name: "columns", columns: schemaColumns, rows: noRows},
	} {
		sysTables[t.keyspace+"."+t.name] = t
	}
}

// systemKeyspaceNames are the keyspaces whose tables this file serves.
var systemKeyspaceNames = map[string]bool{"system": true, "system_schema": true, "system_virtual_schema": true}

func noRows(*Server, net.Addr) [][]any { return nil }

func localRows(s *Server, local net.Addr) [][]any {
	ip, port := net.IPv4(127, 0, 0, 1), 9042
	if a, ok := local.(*net.TCPAddr); ok {
		ip, port = a.IP, a.Port
	}
	return [][]any{{
		"local", "COMPLETED", ip, 7000,
		s.opts.ClusterName, cqlVersion, s.opts.DataCenter, int(s.started.Unix()),
		s.hostID, ip, 7000, strconv.Itoa(protoVersion),
		partitionerID, s.opts.Rack, s.opts.ReleaseVersion, ip,
		port, s.store.schemaVersion(), []string{"0"}, nil,
	}}
}

var systemKeyspaces = []string{"system", "system_schema"}

func keyspaceRows(s *Server, _ net.Addr) [][]any {
	var rows [][]any
	for _, ks := range systemKeyspaces {
		rows = append(rows, []any{ks, true, map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}})
	}
	for _, name := range s.store.keyspaceNames() {
		if k := s.store.keyspace(name); k != nil {
			rows = append(rows, []any{k.name, true, k.repl.Map()})
		}
	}
	return rows
}

// userTables returns the tables of every user keyspace, in name order.
func userTables(s *Server) (ks []string, tables []*schemas.CQLTable) {
	for _, name := range s.store.keyspaceNames() {
		for _, def := range schemas.CQLTables() {
			if _, err := s.store.table(name, def.Name); err == nil {
				ks = append(ks, name)
				tables = append(tables, def)
			}
		}
	}
	return ks, tables
}

func tableRows(s *Server, _ net.Addr) [][]any {
	var rows [][]any
	kss, defs := userTables(s)
	for i, def := range defs {
		id := md5.Sum([]byte(kss[i] + "." + def.Name))
		id[6] = id[6]&0x0f | 0x30 // a version 3 (name-based) UUID
		id[8] = id[8]&0x3f | 0x80
		rows = append(rows, []any{
			kss[i], def.Name, []string{"compound"},
			"99p", 0.01, map[string]string{"keys": "ALL", "rows_per_partition": "NONE"}, false,
			def.Comment, map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy", "max_threshold": "32", "min_threshold": "4"},
			map[string]string{"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"}, 1.0,
			0, map[string]string{}, 864000, id,
			2048, "default", 0, 128,
			"BLOCKING", "99p",
		})
	}
	return rows
}

func columnRows(s *Server, _ net.Addr) [][]any {
	var rows [][]any
	kss, defs := userTables(s)
	for i, def := range defs {
		add := func(cols []schemas.CQLColumn, kind, order string, positioned bool) {
			for p, c := range cols {
				pos := -1
				if positioned {
					pos = p
				}
				rows = append(rows, []any{kss[i], def.Name, c.Name, order, c.Name, kind, pos, c.Type.String()})
			}
		}
		add(def.PartitionKey, "partition_key", "none", true)
		add(def.Clustering, "clustering", "asc", true)
		add(def.Regular, "regular", "none", false)
	}
	return rows
}

// sysSelect is a parsed select of a system table.
type sysSelect struct {
	table   *sysTable
	columns []int     // indexes into table.columns
	where   []sysCond // conditions, all of which a row must meet
}

// sysCond is one condition col = ? or col = 'literal' of a WHERE clause.
type sysCond struct {
	column  int
	literal []byte
	bound   int // the bind marker's number, or -1 for a literal
}

var (
	sysSelectRE = regexp.MustCompile(`(?is)^select\s+(.+?)\s+from\s+"?(\w+)"?\s*\.\s*"?(\w+)"?(?:\s+where\s+(.+?))?(?:\s+allow\s+filtering)?$`)
	sysCondRE   = regexp.MustCompile(`(?is)^"?(\w+)"?\s*=\s*(\?|'(?:[^']|'')*')$`)
	sysAndRE    = regexp.MustCompile(`(?i)\s+and\s+`)
)

// parseSystemSelect parses text as a select of a system table. ok is false
// when text does not read a system keyspace.
func parseSystemSelect(text string) (sel *sysSelect, ok bool, err *cqlError) {
	m := sysSelectRE.FindStringSubmatch(text)
	if m == nil {
		return nil, false, nil
	}
	ks, name := strings.ToLower(m[2]), strings.ToLower(m[3])
	if !systemKeyspaceNames[ks] {
		return nil, false, nil
	}
	t := sysTables[ks+"."+name]
	if t == nil {
		return nil, true, errInvalid("table %s.%s does not exist (this server has %s)", ks, name, strings.Join(systemTableNames(ks), ", "))
	}
	sel = &sysSelect{table: t}
	if cols := strings.TrimSpace(m[1]); cols == "*" {
		for i := range t.columns {
			sel.columns = append(sel.columns, i)
		}
	} else {
		for _, c := range strings.Split(cols, ",") {
			c = strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))
			i := t.column(c)
			if i < 0 {
				return nil, true, errInvalid("Undefined column name %s in table %s.%s", c, ks, name)
			}
			sel.columns = append(sel.columns, i)
		}
	}
	if m[4] == "" {
		return sel, true, nil
	}
	marks := 0
	for _, part := range sysAndRE.Split(strings.TrimSpace(m[4]), -1) {
		cm := sysCondRE.FindStringSubmatch(part)
		if cm == nil {
			return nil, true, errInvalid("cassandratest: only WHERE col = ? or col = 'literal' conditions joined by AND are served on system tables, not %q", part)
		}
		cond := sysCond{column: t.column(strings.ToLower(cm[1])), bound: -1}
		if cond.column < 0 {
			return nil, true, errInvalid("Undefined column name %s in table %s.%s", cm[1], ks, name)
		}
		if cm[2] == "?" {
			cond.bound = marks
			marks++
		} else {
			cond.literal = []byte(strings.ReplaceAll(cm[2][1:len(cm[2])-1], "''", "'"))
		}
		sel.where = append(sel.where, cond)
	}
	return sel, true, nil
}

// systemTableNames returns the tables served of system keyspace ks, sorted.
func systemTableNames(ks string) []string {
	var names []string
	for _, t := range sysTables {
		if t.keyspace == ks {
			names = append(names, t.name)
		}
	}
	sort.Strings(names)
	return names
}

// bindSpecs returns the columns of the bind markers, in order.
func (sel *sysSelect) bindSpecs() []spec {
	var specs []spec
	for _, c := range sel.where {
		if c.bound >= 0 {
			specs = append(specs, spec(sel.table.columns[c.column]))
		}
	}
	return specs
}

// rows returns the selected columns of the matching rows, encoded.
func (sel *sysSelect) rows(s *Server, local net.Addr, binds [][]byte) [][][]byte {
	var out [][][]byte
rows:
	for _, r := range sel.table.rows(s, local) {
		for _, c := range sel.where {
			want := c.literal
			if c.bound >= 0 && c.bound < len(binds) {
				want = binds[c.bound]
			}
			if string(encodeSystem(r[c.column])) != string(want) {
				continue rows
			}
		}
		row := make([][]byte, len(sel.columns))
		for i, c := range sel.columns {
			row[i] = encodeSystem(r[c])
		}
		out = append(out, row)
	}
	return out
}
