package schemas

import (
	"slices"
	"strings"
)

// CQLStatementKind says what a catalog statement does.
type CQLStatementKind uint8

// The kinds of statement the project issues.
const (
	CQLCreateKeyspace  CQLStatementKind = iota + 1 // CREATE KEYSPACE IF NOT EXISTS
	CQLCreateTable                                 // CREATE TABLE IF NOT EXISTS
	CQLDropKeyspace                                // DROP KEYSPACE IF EXISTS (tests and teardown)
	CQLInsert                                      // INSERT of every column, USING TTL ?
	CQLSelectAll                                   // every row of a table (paged)
	CQLSelectPartition                             // every row of one partition, in clustering order
	CQLSelectRow                                   // one row by its full primary key
	CQLSelectSlice                                 // rows of one partition whose first clustering column is in [lo, hi)
	CQLDelete                                      // one row by its full primary key
)

// String names the kind.
func (k CQLStatementKind) String() string {
	switch k {
	case CQLCreateKeyspace:
		return "create keyspace"
	case CQLCreateTable:
		return "create table"
	case CQLDropKeyspace:
		return "drop keyspace"
	case CQLInsert:
		return "insert"
	case CQLSelectAll:
		return "select all"
	case CQLSelectPartition:
		return "select partition"
	case CQLSelectRow:
		return "select row"
	case CQLSelectSlice:
		return "select slice"
	case CQLDelete:
		return "delete"
	}
	return "unknown"
}

// TTLBindName is the name Cassandra gives the bind marker of USING TTL ?.
const TTLBindName = "[ttl]"

// CQLStatement is one statement of the catalog: the exact text the project
// sends, and the types of its bind markers and result columns. The sink
// sends these texts and nothing else, and the CQL test server accepts these
// texts and nothing else, so the two cannot drift apart.
type CQLStatement struct {
	Kind CQLStatementKind
	// Keyspace is the keyspace the statement acts on.
	Keyspace string
	// Table is the table the statement acts on; nil for keyspace statements.
	Table *CQLTable
	// Text is the statement, exactly as sent.
	Text string
	// Binds lists the bind markers in order. An insert binds every column of
	// the table (Table.Columns order), then the TTL in seconds (int, 0 for
	// none); a select binds the leading primary key columns.
	Binds []CQLColumn
	// PartitionKeyIndexes gives, for each partition key column, the index of
	// its bind marker (empty when the partition key is not bound): what a
	// PREPARED result reports for token-aware routing.
	PartitionKeyIndexes []int
	// Result lists the columns a select returns (every column of the table).
	Result []CQLColumn
	// Replication is the replication of a CREATE KEYSPACE.
	Replication ReplicationOptions
}

// CQLSchemaStatements returns the schema statements of CQLSchema, with
// their kinds.
func CQLSchemaStatements(keyspace string, opts ReplicationOptions) []CQLStatement {
	stmts := make([]CQLStatement, 0, 1+len(cqlTables))
	stmts = append(stmts, CQLStatement{
		Kind:        CQLCreateKeyspace,
		Keyspace:    keyspace,
		Text:        createKeyspaceText(keyspace, opts),
		Replication: opts.normalized(),
	})
	for _, t := range cqlTables {
		stmts = append(stmts, CQLStatement{Kind: CQLCreateTable, Keyspace: keyspace, Table: t, Text: createTableText(keyspace, t)})
	}
	return stmts
}

// CQLDropKeyspaceStatement returns DROP KEYSPACE IF EXISTS keyspace: used by
// tests against a real cluster to leave nothing behind.
func CQLDropKeyspaceStatement(keyspace string) CQLStatement {
	return CQLStatement{Kind: CQLDropKeyspace, Keyspace: keyspace, Text: "DROP KEYSPACE IF EXISTS " + keyspace}
}

// CQLCatalog returns every data statement the project issues on keyspace:
// for each table its insert, delete, select all, select partition and (for
// tables with clustering columns) select row and select slice.
func CQLCatalog(keyspace string) []CQLStatement {
	var stmts []CQLStatement
	for _, t := range cqlTables {
		stmts = append(stmts, CQLInsertStatement(keyspace, t), CQLDeleteStatement(keyspace, t),
			CQLSelectStatement(keyspace, t, CQLSelectAll), CQLSelectStatement(keyspace, t, CQLSelectPartition))
		if len(t.Clustering) > 0 {
			stmts = append(stmts, CQLSelectStatement(keyspace, t, CQLSelectRow), CQLSelectStatement(keyspace, t, CQLSelectSlice))
		}
	}
	return stmts
}

// CQLInsertStatement returns the insert of table t:
//
//	INSERT INTO ks.t (c1, ..., cn) VALUES (?, ..., ?) USING TTL ?
//
// Writes are upserts of deterministic keys: replaying one rewrites the same
// row, so the statement is idempotent and safe to retry.
func CQLInsertStatement(keyspace string, t *CQLTable) CQLStatement {
	cols := t.Columns()
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	binds := make([]CQLColumn, 0, len(cols)+1)
	binds = append(append(binds, cols...), CQLColumn{TTLBindName, CQLInt})
	return CQLStatement{
		Kind:                CQLInsert,
		Keyspace:            keyspace,
		Table:               t,
		Text:                "INSERT INTO " + keyspace + "." + t.Name + " (" + columnNames(cols) + ") VALUES (" + marks + ") USING TTL ?",
		Binds:               binds,
		PartitionKeyIndexes: seq(len(t.PartitionKey)),
	}
}

// CQLDeleteStatement returns the delete of one row of table t by its whole
// primary key:
//
//	DELETE FROM ks.t WHERE k1 = ? AND ... AND kn = ?
//
// Compliance messages remove tweets with it; deleting a row twice is the
// same as once.
func CQLDeleteStatement(keyspace string, t *CQLTable) CQLStatement {
	where := t.Columns()[:t.KeyColumns()]
	conds := make([]string, len(where))
	for i, c := range where {
		conds[i] = c.Name + " = ?"
	}
	return CQLStatement{
		Kind:                CQLDelete,
		Keyspace:            keyspace,
		Table:               t,
		Text:                "DELETE FROM " + keyspace + "." + t.Name + " WHERE " + strings.Join(conds, " AND "),
		Binds:               slices.Clone(where),
		PartitionKeyIndexes: seq(len(t.PartitionKey)),
	}
}

// CQLSelectStatement returns a select of every column of t: kind CQLSelectAll (no
// WHERE), CQLSelectPartition (WHERE on the partition key), CQLSelectRow
// (WHERE on the whole primary key) or CQLSelectSlice (WHERE on the
// partition key and c >= ? AND c < ? on the first clustering column c: a
// slice of one partition, such as the cells of a geohash prefix).
func CQLSelectStatement(keyspace string, t *CQLTable, kind CQLStatementKind) CQLStatement {
	s := CQLStatement{
		Kind:     kind,
		Keyspace: keyspace,
		Table:    t,
		Text:     "SELECT " + columnNames(t.Columns()) + " FROM " + keyspace + "." + t.Name,
		Result:   t.Columns(),
	}
	var where []CQLColumn
	switch kind {
	case CQLSelectAll:
	case CQLSelectPartition:
		where = t.PartitionKey
	case CQLSelectRow:
		where = t.Columns()[:t.KeyColumns()]
	case CQLSelectSlice:
		if len(t.Clustering) == 0 {
			panic("schemas: select slice of " + t.Name + ", which has no clustering columns")
		}
		where = t.PartitionKey
	default:
		panic("schemas: CQLSelectStatement of kind " + kind.String())
	}
	if len(where) > 0 {
		conds := make([]string, len(where))
		for i, c := range where {
			conds[i] = c.Name + " = ?"
		}
		s.Binds = slices.Clone(where)
		if kind == CQLSelectSlice {
			c := t.Clustering[0]
			conds = append(conds, c.Name+" >= ?", c.Name+" < ?")
			s.Binds = append(s.Binds, c, c)
		}
		s.Text += " WHERE " + strings.Join(conds, " AND ")
		s.PartitionKeyIndexes = seq(len(t.PartitionKey))
	}
	return s
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
