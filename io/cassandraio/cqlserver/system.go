package cqlserver

import (
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/tweetindex/tweetindex/schemas"
)

// The system tables a driver reads: the node (system.local), its peers
// (none: this is a one-node cluster) and the schema (system_schema.*),
// with Cassandra 4's columns and types. Only selects of the form
//
//	SELECT * | col, ... FROM ks.table [WHERE col = ? | col = 'literal']
//
// are served: what gocql issues at connect, on schema agreement and when it
// refreshes keyspace metadata.

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
		{keyspace: "system_schema", name: "tables", columns: []sysColumn{
			{"keyspace_name", tText}, {"table_name", tText}, {"comment", tText}, {"default_time_to_live", tInt},
			{"flags", tSetText}, {"gc_grace_seconds", tInt}, {"id", tUUID},
		}, rows: tableRows},
		{keyspace: "system_schema", name: "columns", columns: []sysColumn{
			{"keyspace_name", tText}, {"table_name", tText}, {"column_name", tText}, {"clustering_order", tText},
			{"column_name_bytes", tBlob}, {"kind", tText}, {"position", tInt}, {"type", tText},
		}, rows: columnRows},
		{keyspace: "system_schema", name: "views", columns: []sysColumn{
			{"keyspace_name", tText}, {"view_name", tText}, {"base_table_id", tUUID}, {"base_table_name", tText},
			{"include_all_columns", tBoolean}, {"where_clause", tText},
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
	} {
		sysTables[t.keyspace+"."+t.name] = t
	}
}

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
		id := [16]byte{}
		copy(id[:], kss[i]+"."+def.Name)
		rows = append(rows, []any{kss[i], def.Name, def.Comment, 0, []string{"compound"}, 864000, id})
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
	columns []int // indexes into table.columns
	where   int   // column of the WHERE clause, or -1
	literal []byte
	bound   bool // WHERE col = ?
}

var sysSelectRE = regexp.MustCompile(`(?is)^select\s+(.+?)\s+from\s+"?(\w+)"?\s*\.\s*"?(\w+)"?(?:\s+where\s+"?(\w+)"?\s*=\s*(\?|'[^']*'))?(?:\s+allow\s+filtering)?$`)

// parseSystemSelect parses text as a select of a system table. ok is false
// when text does not read a system keyspace.
func parseSystemSelect(text string) (sel *sysSelect, ok bool, err *cqlError) {
	m := sysSelectRE.FindStringSubmatch(text)
	if m == nil {
		return nil, false, nil
	}
	ks, name := strings.ToLower(m[2]), strings.ToLower(m[3])
	if ks != "system" && ks != "system_schema" {
		return nil, false, nil
	}
	t := sysTables[ks+"."+name]
	if t == nil {
		return nil, true, errInvalid("table %s.%s does not exist", ks, name)
	}
	sel = &sysSelect{table: t, where: -1}
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
	if m[4] != "" {
		sel.where = t.column(strings.ToLower(m[4]))
		if sel.where < 0 {
			return nil, true, errInvalid("Undefined column name %s in table %s.%s", m[4], ks, name)
		}
		if m[5] == "?" {
			sel.bound = true
		} else {
			sel.literal = []byte(strings.ReplaceAll(m[5][1:len(m[5])-1], "''", "'"))
		}
	}
	return sel, true, nil
}

// rows returns the selected columns of the matching rows, encoded.
func (sel *sysSelect) rows(s *Server, local net.Addr, binds [][]byte) [][][]byte {
	want := sel.literal
	if sel.bound && len(binds) > 0 {
		want = binds[0]
	}
	var out [][][]byte
	for _, r := range sel.table.rows(s, local) {
		if sel.where >= 0 && string(encodeSystem(r[sel.where])) != string(want) {
			continue
		}
		row := make([][]byte, len(sel.columns))
		for i, c := range sel.columns {
			row[i] = encodeSystem(r[c])
		}
		out = append(out, row)
	}
	return out
}
