package cassandratest

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tweetindex/tweetindex/schemas"
)

// pyRequired are the columns the DataStax Python driver reads from each
// system table with row["..."] (cassandra/metadata.py and cluster.py of
// 3.25): a result without one of them fails its connect or its metadata
// refresh. The other columns it reads with row.get.
var pyRequired = map[string][]string{
	"system.local":                    {"cluster_name"},
	"system_schema.keyspaces":         {"keyspace_name", "durable_writes", "replication"},
	"system_schema.tables":            {"keyspace_name", "table_name"},
	"system_schema.columns":           {"keyspace_name", "table_name", "column_name", "type", "clustering_order"},
	"system_schema.views":             {"keyspace_name", "view_name", "base_table_name", "include_all_columns", "where_clause"},
	"system_schema.triggers":          {"keyspace_name", "table_name", "trigger_name", "options"},
	"system_schema.indexes":           {"keyspace_name", "table_name", "index_name", "kind", "options"},
	"system_schema.types":             {"keyspace_name", "type_name", "field_names", "field_types"},
	"system_schema.functions":         {"keyspace_name", "function_name", "argument_types", "argument_names", "return_type", "language", "body", "called_on_null_input"},
	"system_schema.aggregates":        {"keyspace_name", "aggregate_name", "argument_types", "state_func", "state_type", "final_func", "initcond", "return_type"},
	"system_virtual_schema.columns":   {"keyspace_name", "table_name", "column_name", "type", "clustering_order"},
	"system_virtual_schema.tables":    {"keyspace_name", "table_name"},
	"system_virtual_schema.keyspaces": {"keyspace_name"},
}

// rowsResult is a decoded ROWS result.
type rowsResultT struct {
	keyspace, table string
	names           []string
	types           []uint16
	rows            [][][]byte
}

func readType(r *reader) uint16 {
	id := r.short()
	switch id {
	case idList, idSet:
		readType(r)
	case idMap:
		readType(r)
		readType(r)
	}
	return id
}

func readRows(t *testing.T, r *reader) rowsResultT {
	t.Helper()
	var res rowsResultT
	flags := r.int()
	n := int(r.int())
	if flags&mfHasMorePages != 0 {
		r.bytes()
	}
	if flags&mfGlobalTableSpec != 0 {
		res.keyspace, res.table = r.string(), r.string()
	}
	for i := 0; i < n; i++ {
		res.names = append(res.names, r.string())
		res.types = append(res.types, readType(r))
	}
	rows := int(r.int())
	for i := 0; i < rows; i++ {
		row := make([][]byte, n)
		for j := range row {
			row[j] = r.bytes()
		}
		res.rows = append(res.rows, row)
	}
	if r.err != nil {
		t.Fatalf("malformed ROWS result: %v", r.err)
	}
	return res
}

// TestPythonDriverStatements replays, over the wire as the driver sends
// them (QUERY, no bind values), the statements the DataStax Python driver
// sent devcql when it connected with its defaults, created the schema and
// read a table (testdata/python-driver.cql, captured with devcql -trace):
// each is answered with rows and the columns the driver reads; the schema
// tables describe the project's keyspace (text columns as text), and
// SELECT * of a project table gives its rows with text values.
func TestPythonDriverStatements(t *testing.T) {
	const pyks = "pyks" // the keyspace of the capture
	srv, sess := startServer(t, Options{}, nil)
	for _, stmt := range schemas.CQLSchema(pyks, schemas.ReplicationOptions{}) {
		if err := sess.Query(stmt).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	ins := schemas.CQLInsertStatement(pyks, schemas.CQLFrequency).Text
	vals, err := schemas.CQLValues(nil, schemas.FrequencyRow{Minute: "202611011200", Lang: "en", Count: 3}.Cell())
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Query(ins, append(vals, int32(0))...).Exec(); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open("testdata/python-driver.cql")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stmts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			stmts = append(stmts, line)
		}
	}
	if len(stmts) < 20 {
		t.Fatalf("only %d statements in the capture", len(stmts))
	}

	c := dialRaw(t, srv)
	c.send(protoVersion, 0, opStartup, stringMapBody(map[string]string{"CQL_VERSION": "3.0.0"}))
	if h, _ := c.recv(); h.opcode != opReady {
		t.Fatalf("STARTUP answered opcode %d", h.opcode)
	}
	from := regexp.MustCompile(`(?i)\bfrom\s+(\w+)\.(\w+)`)
	seen := map[string]bool{}
	for i, stmt := range stmts {
		c.send(protoVersion, int16(i+1), opQuery, queryBody(stmt))
		h, r := c.recv()
		if h.opcode == opError {
			code, msg := r.int(), r.string()
			t.Errorf("%s: error 0x%04x %s", stmt, code, msg)
			continue
		}
		if kind := r.int(); h.opcode != opResult || kind != resultRows {
			t.Errorf("%s: opcode %d kind %d, want ROWS", stmt, h.opcode, kind)
			continue
		}
		res := readRows(t, r)
		m := from.FindStringSubmatch(stmt)
		if m == nil {
			t.Fatalf("%s: no table", stmt)
		}
		table := strings.ToLower(m[1] + "." + m[2])
		seen[table] = true
		var required []string // columns named in the select, or those the driver reads of a SELECT *
		if cols := strings.TrimSpace(stmt[len("SELECT "):strings.Index(strings.ToUpper(stmt), " FROM ")]); cols == "*" {
			required = pyRequired[table]
		} else {
			required = strings.Split(strings.ReplaceAll(cols, " ", ""), ",")
		}
		for _, col := range required {
			if !slices.Contains(res.names, col) {
				t.Errorf("%s: no column %s (has %v)", stmt, col, res.names)
			}
		}
		rowsOf := func(col string) []string {
			j := slices.Index(res.names, col)
			var out []string
			for _, row := range res.rows {
				out = append(out, string(row[j]))
			}
			return out
		}
		switch {
		case stmt == "SELECT * FROM system_schema.keyspaces":
			if !slices.Contains(rowsOf("keyspace_name"), pyks) {
				t.Errorf("%s: no row of %s", stmt, pyks)
			}
		case stmt == "SELECT * FROM system_schema.tables":
			for _, ct := range schemas.CQLTables() {
				if !slices.Contains(rowsOf("table_name"), ct.Name) {
					t.Errorf("%s: no row of %s", stmt, ct.Name)
				}
			}
		case strings.HasSuffix(stmt, "table_name = 'tweet_frequency'") && table == "system_schema.columns":
			names, types := rowsOf("column_name"), rowsOf("type")
			if j := slices.Index(names, "lang"); j < 0 || types[j] != "text" {
				t.Errorf("%s: columns %v of types %v, want lang text", stmt, names, types)
			}
		case table == pyks+".tweet_frequency":
			j := slices.Index(res.names, "lang")
			if j < 0 || res.types[j] != uint16(schemas.CQLText) || len(res.rows) != 1 || string(res.rows[0][j]) != "en" {
				t.Errorf("%s: columns %v types %v rows %q, want one row with lang 'en' as text", stmt, res.names, res.types, res.rows)
			}
		}
	}
	for table := range pyRequired {
		if !seen[table] && table != "system.local" {
			t.Errorf("the capture reads no %s", table)
		}
	}
	if !seen[pyks+".tweet_frequency"] || !seen["system.local"] {
		t.Error("the capture does not read system.local and the frequency table")
	}
}
