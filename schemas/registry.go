package schemas

// The registry: one TableSpec per stored table, saying in one place what
// the table is, and what the code that iterates over the tables (dump, the
// run summary, the embedded store's bulk load, the CQL layout, the mapping
// of cells to CQL rows, the Cassandra reads of a key range) needs to know
// of it. A new table is added to Tables (its id), to the registry
// below (registry_test.go checks that every table has one complete entry),
// and to the code that makes its cells: for a table derived from stored
// tweets, one entry of transforms.DerivedTables.

// TableSpec describes one stored table.
type TableSpec struct {
	// Table is the table's id, the one-byte prefix of its keys in the
	// embedded store.
	Table Table
	// Name is the table's name as the command line spells it (Table.Name).
	Name string
	// Derived says that the table holds cells derived from each stored
	// tweet and keyed by its row key (raw, terms, geo, authors): they are
	// written with the tweet, and deleted with it wherever a stored tweet
	// goes (a version replaced, a compliance delete, forget).
	Derived bool
	// BesideRaw says that the table's cells are written with each raw
	// cell, in the same batch (transforms.RawCells): the authors table,
	// and the identity table, keyed by tweet id, not derived: its cell
	// becomes a tombstone when the tweet goes, and stays.
	BesideRaw bool
	// BulkSorted says that a bulk load of the embedded store gathers,
	// sorts and ingests the table's cells rather than writing them
	// through the memtable (io/storeio/bulkload.go): the tables of a cell
	// or more per tweet, whose ids sort after every other table's.
	BulkSorted bool
	// Summarized says that the run summary counts the cells written to
	// the table (Summary.Rows, by Name).
	Summarized bool
	// Shared says that the table's cells are keyed by row key without the
	// tweet id (terms, geo), so the two tweets of a row-key collision
	// share a cell, which holds one of theirs (docs/tables.md).
	Shared bool
	// TweetKey returns the row key of the stored tweet a cell of a Derived
	// table belongs to, from the cell's key (false for a key too short);
	// nil for the other tables.
	TweetKey func(key []byte) (RowKey, bool)
	// Dump decodes a cell of the table into the value that tweetindex
	// dump encodes (encoding/json) as the row's object in its JSON lines.
	Dump func(key, value []byte) (any, error)
	// CQL is the table's CQL layout.
	CQL *CQLTable
	// CQLRow maps the table's cells to and from the rows of CQL
	// (CQLValues, CellFromCQL).
	CQLRow CQLRow
	// CQLRange returns the reads of the CQL table that give the cells
	// whose keys lie in [start, end) (cqlrange.go; neither is nil): the
	// partitions of the range, or the whole table for a small one. It
	// fails for a range that the table's partitions cannot bound.
	CQLRange func(start, end []byte) (CQLRange, error)
	// RowKeyLookup says that a key of the table may be a row key alone
	// (RowKeyLen bytes) in a Lookup of the sinks, which then returns the
	// first cell filed under it (LookupRange): the raw table's tweet
	// with the smallest id.
	RowKeyLookup bool
	// Earlier, if not nil, reports whether a cell's stored value, found,
	// is want as a build before the current layout wrote it, which the
	// current code reads as well (a term row without positions): check
	// takes it for right.
	Earlier func(found, want []byte) bool

	// cqlSampleValue is a valid value of the table, so that a key alone
	// can be mapped to its CQL columns (CQLKeyValues).
	cqlSampleValue []byte
}

// registry lists the tables' specs in the order of Tables.
var registry = []*TableSpec{
	{
		Table: TableRaw, Name: "raw",
		Derived: true, BulkSorted: true, Summarized: true, TweetKey: leadingRowKey,
		Dump: dumpRaw, CQL: CQLRaw, RowKeyLookup: true,
		CQLRow: CQLRow{rawCQLValues, rawFromCQL}, CQLRange: rawCQLRange,
	},
	{
		Table: TableTerms, Name: "terms",
		Derived: true, BulkSorted: true, Summarized: true, Shared: true, TweetKey: trailingRowKey(0),
		Dump: dumpTerm, CQL: CQLTerms, Earlier: termWithoutPositions,
		CQLRow: CQLRow{termsCQLValues, termsFromCQL}, CQLRange: termsCQLRange,
	},
	{
		Table: TableFrequency, Name: "frequency",
		Summarized: true,
		Dump:       dumpFrequency, CQL: CQLFrequency, cqlSampleValue: []byte("0"),
		CQLRow: CQLRow{frequencyCQLValues, frequencyFromCQL}, CQLRange: frequencyCQLRange,
	},
	{
		Table: TableGeo, Name: "geo",
		Derived: true, Summarized: true, Shared: true, TweetKey: trailingRowKey(0),
		Dump: dumpGeo, CQL: CQLGeo, cqlSampleValue: make([]byte, 8),
		CQLRow: CQLRow{geoCQLValues, geoFromCQL}, CQLRange: geoCQLRange,
	},
	{
		Table: TableDeadLetter, Name: "deadletter",
		Summarized: true,
		Dump:       dumpDeadLetter, CQL: CQLDeadLetter, cqlSampleValue: []byte{0},
		CQLRow: CQLRow{deadLetterCQLValues, deadLetterFromCQL}, CQLRange: cqlRangeWhole,
	},
	{
		Table: TableMeta, Name: "meta",
		Dump: dumpMeta, CQL: CQLMeta,
		CQLRow: CQLRow{metaCQLValues, metaFromCQL}, CQLRange: cqlRangeWhole,
	},
	{
		Table: TableIdentity, Name: "identity",
		BesideRaw: true, Summarized: true,
		Dump: dumpIdentity, CQL: CQLIdentity,
		CQLRow: CQLRow{identityCQLValues, identityFromCQL}, CQLRange: cqlRangeWhole,
	},
	{
		Table: TableAuthors, Name: "authors",
		Derived: true, BesideRaw: true, BulkSorted: true, Summarized: true, TweetKey: leadingRowKey,
		Dump: dumpAuthor, CQL: CQLAuthors, cqlSampleValue: []byte{0},
		CQLRow: CQLRow{authorsCQLValues, authorsFromCQL}, CQLRange: minutesCQLRange,
	},
	{
		Table: TableEdges, Name: "edges",
		Derived: true, BulkSorted: true, Summarized: true, TweetKey: trailingRowKey(8),
		Dump: dumpEdge, CQL: CQLEdges, cqlSampleValue: []byte{},
		CQLRow: CQLRow{edgesCQLValues, edgesFromCQL}, CQLRange: edgesCQLRange,
	},
	{
		// Counts of many tweets, as the frequency table: recounted from the
		// raw table for the days a run or a delete marks (TermDayMark).
		Table: TableTermDays, Name: "termdays",
		Summarized: true, // the cells the recount wrote (job.Run)
		Dump:       dumpTermDay, CQL: CQLTermDays, cqlSampleValue: []byte("0"),
		CQLRow: CQLRow{termDaysCQLValues, termDaysFromCQL}, CQLRange: termDaysCQLRange,
	},
	{
		// Counts of many tweets: the edge weights of each day, recounted
		// from the edge table for the days a run or a delete marks
		// (EdgeDayMark).
		Table: TableEdgeDays, Name: "edgedays",
		Summarized: true, // the cells the recount wrote (job.Run)
		Dump:       dumpEdgeDay, CQL: CQLEdgeDays, cqlSampleValue: []byte("0"),
		CQLRow: CQLRow{edgeDaysCQLValues, edgeDaysFromCQL}, CQLRange: edgeDaysCQLRange,
	},
}

// specs indexes registry by table id.
var specs = func() (s [256]*TableSpec) {
	for _, spec := range registry {
		s[spec.Table] = spec
	}
	return s
}()

// Registry returns the specs of every table, in the order of Tables. The
// caller must not modify them.
func Registry() []*TableSpec { return registry }

// Spec returns the table's spec, or nil for an unknown table.
func (t Table) Spec() *TableSpec { return specs[t] }

// LookupRange returns the key range whose first cell a sink's Lookup of
// key in table t returns, when key is a row key alone in a table whose
// spec says RowKeyLookup (the raw table: the tweets filed under it, the
// one with the smallest id first); ok is false for a key that Lookup reads
// as a whole key (Get).
func LookupRange(t Table, key []byte) (start, end []byte, ok bool) {
	if s := t.Spec(); s == nil || !s.RowKeyLookup || len(key) != RowKeyLen {
		return nil, nil, false
	}
	return key, RowKey(key).RawEnd(), true
}

// leadingRowKey is TableSpec.TweetKey of the tables keyed as the raw
// table: the row key first.
func leadingRowKey(key []byte) (RowKey, bool) {
	var k RowKey
	if len(key) < RowKeyLen {
		return k, false
	}
	copy(k[:], key)
	return k, true
}

// trailingRowKey returns TableSpec.TweetKey of the tables whose keys end
// with the row key and then n bytes (the terms and geo tables: none; the
// edge table: the tweet id).
func trailingRowKey(n int) func(key []byte) (RowKey, bool) {
	return func(key []byte) (RowKey, bool) {
		var k RowKey
		if len(key) < RowKeyLen+n {
			return k, false
		}
		copy(k[:], key[len(key)-n-RowKeyLen:])
		return k, true
	}
}
