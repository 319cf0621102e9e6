package schemas

import (
	"fmt"
	"strings"
)

// This file is the CQL layout of every table (Apache Cassandra 3.11+, 4.x,
// 5.x and ScyllaDB): the partition key of each table, the reason for it, and
// the partition size it stays under. The DDL is generated from the
// definitions below, so the definitions, the statements of cqlcatalog.go and
// the row mappings (TableSpec.CQLRow) cannot disagree.
//
// Rates the sizes are computed for (the seeds' figures):
//
//	1% sample stream   5 M tweets/day   ~3,500 tweets/minute
//	crisis event      50 M tweets/day  ~35,000 tweets/minute ("tens of millions")
//
// A stored v1.1 tweet is 2-5 KB of JSON (retweets embed their original: up to
// ~10 KB); 4 KB is used below. An index row of Cassandra's storage format
// (3.0+) costs about 25-45 bytes besides its clustering key. The target is the
// usual Cassandra guideline: every partition under 100 MB (and well under
// a million rows), whatever the rate, and every query the seeds ask for a
// bounded set of partition reads.
//
// Column types: text wherever the value is text (terms, fields, language
// tags, geohashes, dead-letter sources and reasons, metadata names and
// their JSON values), so that cqlsh and other drivers show them as strings;
// blob only for bytes that must come back exactly as read and need not be
// UTF-8 (the stored tweet JSON, a dead letter's raw input, row keys and
// identity values). Cassandra validates text as UTF-8: the cells keep text
// valid (TermRow.Cell and DeadLetterRow.Cell replace invalid bytes with
// U+FFFD; the tokenizer and the language rule never produce them), and
// CQLValues refuses a cell whose text is not.

// CQLType is a CQL column type, numbered as the native protocol numbers its
// [option] ids (native_protocol_v4.spec, section 4.2.5.2).
type CQLType uint16

// The CQL types the tables use.
const (
	CQLBigint    CQLType = 0x0002
	CQLBlob      CQLType = 0x0003
	CQLFloat     CQLType = 0x0008
	CQLInt       CQLType = 0x0009
	CQLTimestamp CQLType = 0x000B
	CQLText      CQLType = 0x000D
	CQLDate      CQLType = 0x0011
	CQLSmallint  CQLType = 0x0013
	CQLTinyint   CQLType = 0x0014
)

// String returns the type's CQL name.
func (t CQLType) String() string {
	switch t {
	case CQLBigint:
		return "bigint"
	case CQLBlob:
		return "blob"
	case CQLFloat:
		return "float"
	case CQLInt:
		return "int"
	case CQLTimestamp:
		return "timestamp"
	case CQLText:
		return "text"
	case CQLDate:
		return "date"
	case CQLSmallint:
		return "smallint"
	case CQLTinyint:
		return "tinyint"
	}
	return fmt.Sprintf("cqltype(0x%04x)", uint16(t))
}

// CQLColumn is a named, typed column (or bind marker).
type CQLColumn struct {
	Name string
	Type CQLType
}

// CQLTable is the CQL layout of one table. Columns, in the order of every
// statement of the catalog, are the partition key, then the clustering
// columns (all ascending), then the regular columns.
type CQLTable struct {
	// Name is the CQL table name, e.g. "raw_tweets".
	Name string
	// Table is the project table the CQL table stores.
	Table Table
	// PartitionKey lists the partition key columns.
	PartitionKey []CQLColumn
	// Clustering lists the clustering columns, all in ascending order.
	Clustering []CQLColumn
	// Regular lists the other columns.
	Regular []CQLColumn
	// Comment is the table comment stored in the schema.
	Comment string
	// Reason says why the partition key is what it is, and the partition size
	// it stays under at the stated rates. CQLSchemaScript prints it.
	Reason string

	columns []CQLColumn
}

// Columns returns every column: partition key, clustering, regular.
func (t *CQLTable) Columns() []CQLColumn { return t.columns }

// KeyColumns returns the number of primary key columns (partition key and
// clustering): the leading columns of Columns that a cell's key determines.
func (t *CQLTable) KeyColumns() int { return len(t.PartitionKey) + len(t.Clustering) }

// Bucket counts and chunk sizes of the partition keys. They are part of the
// layout: changing one moves rows to other partitions, so a keyspace written
// with one value must be read with the same.
const (
	// RawBuckets is the number of partitions one minute of raw tweets is
	// spread over: bucket = Murmur2(row key) mod RawBuckets.
	RawBuckets = 16
	// DeadLetterChunk is the number of lines of one source per dead-letter
	// partition: chunk = line / DeadLetterChunk.
	DeadLetterChunk = 1000
)

// The CQL tables, one per project table.
var (
	// CQLRaw stores RawTwitterData.
	CQLRaw = newCQLTable(&CQLTable{
		Name:  "raw_tweets",
		Table: TableRaw,
		PartitionKey: []CQLColumn{
			{"minute", CQLTimestamp}, // created_at truncated to the minute (UTC)
			{"bucket", CQLTinyint},   // Murmur2(row key) mod RawBuckets
		},
		Clustering: []CQLColumn{
			{"row_key", CQLBlob},
			{"id", CQLBigint}, // the tweet id: two tweets can share a row key (a collision)
		},
		Regular: []CQLColumn{{"tweet", CQLBlob}}, // the stored JSON, byte for byte
		Comment: "RawTwitterData: (row key, tweet id) -> stored tweet JSON",
		Reason: `Partition (minute of created_at, bucket = murmur2(row key) mod 16),
clustered by (row key, tweet id): the id makes the row unique per tweet, so two
tweets of one second whose JSON hashes alike (a row-key collision) are both kept.
A row key holds created_at and so names its minute and its bucket: a point
read by row key is one partition read with no index. One minute of tweets is
spread over 16 partitions, so a minute's writes go to 16 replica sets, not one.
Size: 1% stream 3,500 tweets/min x 4 KB / 16 = 0.9 MB; crisis 35,000 x 4 KB / 16
= 9 MB; even 100 M tweets/day of 10 KB tweets stays at 44 MB. A per-day or
per-hour partition would be 12.5 GB or 525 MB at crisis rates.`,
	})

	// CQLAuthors stores TweetAuthors.
	CQLAuthors = newCQLTable(&CQLTable{
		Name:  "tweet_authors",
		Table: TableAuthors,
		PartitionKey: []CQLColumn{
			{"minute", CQLTimestamp}, // created_at truncated to the minute (UTC), as raw_tweets
			{"bucket", CQLTinyint},   // Murmur2(row key) mod RawBuckets, as raw_tweets
		},
		Clustering: []CQLColumn{
			{"row_key", CQLBlob},
			{"id", CQLBigint}, // the tweet id, as raw_tweets: one row per stored tweet
		},
		Regular: []CQLColumn{
			{"lang", CQLText},        // the tweet's language tag
			{"screen_name", CQLText}, // the author's screen name, lower-cased
		},
		Comment: "TweetAuthors: (row key, tweet id) -> language, lower-cased screen name",
		Reason: `Partition (minute of created_at, bucket = murmur2(row key) mod 16),
clustered by (row key, tweet id): the raw_tweets layout, one row beside each
stored tweet, so that a row and its tweet are written to, and deleted from,
the same kind of partition, and "tweets per user between t1 and t2" reads
the same partitions a time range of raw_tweets does, at ~40 B a row instead
of a 4 KB tweet. Size: crisis 35,000 tweets/min x ~60 B / 16 = 130 KB; small
partitions (a partition per hour would hold 60 times more, still 8 MB, and
need 60 times fewer reads: a choice to revisit if Cassandra reads of long
ranges matter more than sharing raw_tweets' partitioning).`,
	})

	// CQLEdges stores TweetEdges.
	CQLEdges = newCQLTable(&CQLTable{
		Name:  "tweet_edges",
		Table: TableEdges,
		PartitionKey: []CQLColumn{
			{"type", CQLText},      // retweet, quote, reply, mention or hashtag
			{"day", CQLDate},       // UTC day of created_at
			{"bucket", CQLTinyint}, // Murmur2(row key) mod RawBuckets, as raw_tweets
		},
		Clustering: []CQLColumn{
			{"source", CQLText}, // lower-cased screen name or hashtag
			{"target", CQLText},
			{"row_key", CQLBlob},
			{"id", CQLBigint}, // the tweet id, as raw_tweets: one row per stored tweet and edge
		},
		Comment: "TweetEdges: (type, day, bucket) -> (source, target, row key, tweet id)",
		Reason: `Partition (type, day, bucket = murmur2(row key) mod 16), clustered by
(source, target, row key, tweet id): one row per edge of each stored tweet.
"Edges of a kind over a range of days" reads 16 partitions a day, each in
(source, target) order, so the weights of an edge are adjacent rows; the
edges of one source are a slice. Size: mentions, the most frequent kind, at
about 1 a tweet and ~50 B a row: crisis 50 M tweets/day / 16 = 150 MB would be
too large, the 1% stream 5 M / 16 = 16 MB. A crisis store wants more buckets
(a choice to revisit, as for raw_tweets' minute).`,
	})

	// CQLTermDays stores TermDays.
	CQLTermDays = newCQLTable(&CQLTable{
		Name:  "term_days",
		Table: TableTermDays,
		PartitionKey: []CQLColumn{
			{"day", CQLDate},       // UTC day of created_at
			{"field", CQLText},     // hashtag, mention, text, user or url
			{"bucket", CQLTinyint}, // Murmur2(term) mod TermDayBuckets
		},
		Clustering: []CQLColumn{
			{"term", CQLText}, // the term as tokenized
			{"lang", CQLText}, // the tweets' language tag
		},
		Regular: []CQLColumn{{"tweets", CQLBigint}}, // absolute count of the day, never a counter
		Comment: "TermDays: (day, field, bucket) -> (term, lang) -> absolute count of tweets",
		Reason: `Partition (day, field, bucket = murmur2(term) mod 16), clustered by
(term, lang): one row per distinct term and language of a day. "Top terms of a
field over a range of days" reads 16 partitions a day, whatever the tweets:
the terms that begin with a prefix are a slice of each (term >= prefix AND
term < next prefix). Size: the text field holds the most distinct terms, at
crisis rates some 10 M a day (most seen once) x ~40 B / 16 = 25 MB, hashtags,
mentions, users and hosts far fewer. Counts are absolute, rewritten by the
recount of a day, never Cassandra counters, which are not idempotent under
retries.`,
	})

	// CQLEdgeDays stores EdgeDays.
	CQLEdgeDays = newCQLTable(&CQLTable{
		Name:  "edge_days",
		Table: TableEdgeDays,
		PartitionKey: []CQLColumn{
			{"type", CQLText},      // retweet, quote, reply, mention or hashtag
			{"day", CQLDate},       // UTC day of the tweets' created_at
			{"bucket", CQLTinyint}, // Murmur2(source, NUL, target) mod EdgeDayBuckets
		},
		Clustering: []CQLColumn{
			{"source", CQLText},
			{"target", CQLText},
		},
		Regular: []CQLColumn{{"tweets", CQLBigint}}, // absolute count of the day, never a counter
		Comment: "EdgeDays: (type, day, bucket) -> (source, target) -> absolute count of tweets",
		Reason: `Partition (type, day, bucket = murmur2(source, target) mod 16), clustered
by (source, target): one row per distinct edge of a kind and day, whatever
the tweets that make it. "Edges of a kind over whole days" reads 16
partitions a day and as many rows as the day has distinct edges. Size:
mentions, the kind with the most distinct edges, at most one a tweet, ~40 B a
row: crisis 50 M tweets/day / 16 = 125 MB at worst, far less as edges repeat
(a retweet network repeats its pairs), the 1% stream 5 M / 16 = 12 MB at
worst. Counts are absolute, rewritten by the recount of a day, never
Cassandra counters, which are not idempotent under retries.`,
	})

	// CQLTerms stores TermIndex.
	CQLTerms = newCQLTable(&CQLTable{
		Name:  "term_index",
		Table: TableTerms,
		PartitionKey: []CQLColumn{
			{"term", CQLText},    // the term as tokenized (TermRow.Cell makes it valid UTF-8)
			{"field", CQLText},   // "text", "user", ...
			{"day", CQLDate},     // UTC day of created_at
			{"hour", CQLTinyint}, // UTC hour of created_at, 0..23
		},
		Clustering: []CQLColumn{{"row_key", CQLBlob}},
		Regular: []CQLColumn{
			{"freq", CQLInt},
			{"positions", CQLBlob}, // text rows: the term's positions (schemas.AppendTermPositions); empty: none recorded
		},
		Comment: "TermIndex: (term, field, day, hour) -> row keys in time order, with the term frequency and positions",
		Reason: `Partition (term, field, day, hour), clustered by row key (time order).
"Tweets with term T in field F between t1 and t2" reads one partition per hour
of the range (hour IN (...) for a day), each a slice in time order.
The hour is in the partition key because a common term ("rt", "the", a crisis
hashtag) is in up to half of all tweets: at crisis rates a (term, field, day)
partition would hold 25 M rows = ~900 MB at ~35 B/row, far over 100 MB.
Per hour: crisis ~1 M rows = ~37 MB; 1% stream ~100 K rows = ~4 MB.
Rare terms make small partitions; that costs nothing.`,
	})

	// CQLFrequency stores TweetFrequency.
	CQLFrequency = newCQLTable(&CQLTable{
		Name:         "tweet_frequency",
		Table:        TableFrequency,
		PartitionKey: []CQLColumn{{"day", CQLDate}},
		Clustering: []CQLColumn{
			{"minute", CQLTimestamp}, // the 1-minute window (UTC)
			{"lang", CQLText},        // language tag: ASCII letters, digits, '-' and '_', or "und"
		},
		Regular: []CQLColumn{{"tweets", CQLBigint}}, // absolute count of the window, never a counter
		Comment: "TweetFrequency: day -> (minute, lang) -> absolute tweet count",
		Reason: `Partition (day), clustered by (minute, lang).
A day's time series is one partition read; a range of minutes is a slice.
Rows per day = 1,440 minutes x languages seen (~70 in the 1% stream), whatever
the tweet rate: ~100 K rows x ~40 B = ~4 MB. Counts are absolute values per
window (rewritten with the new total when late data fires a window again),
never Cassandra counters, which are not idempotent under retries.`,
	})

	// CQLGeo stores GeoTemporalIndex.
	CQLGeo = newCQLTable(&CQLTable{
		Name:  "geo_temporal",
		Table: TableGeo,
		PartitionKey: []CQLColumn{
			{"spread", CQLSmallint}, // murmur2(json) mod 255, 0..254
			{"day", CQLDate},        // UTC day of created_at
		},
		Clustering: []CQLColumn{
			{"geohash", CQLText}, // 8-character geohash
			{"row_key", CQLBlob},
		},
		// point_kind: 1 exact coordinates, 2 a place's centre; null (rows
		// written before it was added) reads as unknown.
		Regular: []CQLColumn{{"lat", CQLFloat}, {"lon", CQLFloat}, {"point_kind", CQLTinyint}},
		Comment: "GeoTemporalIndex: (spread, day) -> (geohash, row key) -> lat, lon, point kind",
		Reason: `Partition (spread, day), clustered by (geohash, row key).
The spread byte (murmur2 of the JSON mod 255) spreads a day's geotagged writes
evenly over 255 partitions; an area on a day is 255 partition reads, each a
slice geohash >= prefix AND geohash < next prefix. Crisis rates with 10%
geotagged (2% is usual): 5 M/255 = ~20 K rows x ~50 B = 1 MB; even if every
tweet were geotagged, 200 K rows = 10 MB.`,
	})

	// CQLDeadLetter stores the dead letters.
	CQLDeadLetter = newCQLTable(&CQLTable{
		Name:  "dead_letter",
		Table: TableDeadLetter,
		PartitionKey: []CQLColumn{
			{"source", CQLText},  // file path or "kafka:TOPIC/PARTITION" (DeadLetterRow.Cell makes it valid UTF-8)
			{"chunk", CQLBigint}, // line / 1000
		},
		Clustering: []CQLColumn{{"line", CQLBigint}, {"item", CQLInt}},
		Regular:    []CQLColumn{{"reason", CQLText}, {"raw", CQLBlob}}, // raw: the input bytes as read, valid UTF-8 or not
		Comment:    "Dead letters: (source, chunk) -> line, item -> reason, raw input",
		Reason: `Partition (source, line / 1000), clustered by line and item (the
number of the dead letter among those of its line: a v2 page or a one-line
array can hold several bad items, each its own row; 0 for most lines).
A source's dead letters are read in line order, 1,000 lines per partition. The
source alone would make one unbounded partition for a badly broken multi-GB
file (or a Kafka partition, whose "line" is the offset). Broken lines are a
few KB: ~4 MB per partition. (The raw value is capped at 1 MiB, so the bound
is 1 GB only for a source whose every line is a megabyte of garbage.)`,
	})

	// CQLMeta stores the metadata table.
	CQLMeta = newCQLTable(&CQLTable{
		Name:         "metadata",
		Table:        TableMeta,
		PartitionKey: []CQLColumn{{"name", CQLText}},
		Regular:      []CQLColumn{{"value", CQLText}}, // JSON, or empty
		Comment:      "Index parameters, per-day counts and runs: name -> JSON value",
		Reason: `Partition (name): one small JSON value per name ("param/index",
"run/<start>", "geoday/<day>" marking the days that hold geo rows, ...).
Bytes, not megabytes.`,
	})

	// CQLIdentity stores the identity table.
	CQLIdentity = newCQLTable(&CQLTable{
		Name:         "tweet_identity",
		Table:        TableIdentity,
		PartitionKey: []CQLColumn{{"id", CQLBigint}},
		Regular:      []CQLColumn{{"row_key", CQLBlob}}, // empty: deleted (a tombstone)
		Comment:      "Tweet id -> row key of the stored version (empty: deleted by a compliance message)",
		Reason: `Partition (id): one row of ~40 B per tweet id (far under 1 MB). Every use is a point read
or write by id: deduplication across runs asks "is this id stored, and as which
version", and a delete notice knows nothing but the id. Cassandra spreads
single-row partitions evenly and reads one with one partition lookup; a
partition by time would need the tweet's created_at, which a v1.1 delete
notice does not carry.`,
	})
)

// cqlTables lists the CQL tables in the order of Tables (Registry).
var cqlTables = func() []*CQLTable {
	ts := make([]*CQLTable, len(registry))
	for i, s := range registry {
		ts[i] = s.CQL
	}
	return ts
}()

func newCQLTable(t *CQLTable) *CQLTable {
	t.columns = make([]CQLColumn, 0, len(t.PartitionKey)+len(t.Clustering)+len(t.Regular))
	t.columns = append(t.columns, t.PartitionKey...)
	t.columns = append(t.columns, t.Clustering...)
	t.columns = append(t.columns, t.Regular...)
	return t
}

// CQLTables returns the CQL tables in the order of Tables.
func CQLTables() []*CQLTable { return cqlTables }

// CQLTableOf returns the CQL table of a project table (TableSpec.CQL), or nil.
func CQLTableOf(t Table) *CQLTable {
	if s := t.Spec(); s != nil {
		return s.CQL
	}
	return nil
}

// CQLTableNamed returns the CQL table called name, or nil.
func CQLTableNamed(name string) *CQLTable {
	for _, c := range cqlTables {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ValidKeyspace reports whether name can be used unquoted as a keyspace:
// a lower-case letter, then up to 47 lower-case letters, digits or '_'.
// (Unquoted CQL identifiers are case-insensitive; requiring lower case keeps
// the name the same in the schema as in the configuration.)
func ValidKeyspace(name string) error {
	if len(name) == 0 || len(name) > 48 {
		return fmt.Errorf("keyspace %q: want 1 to 48 characters", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return fmt.Errorf("keyspace %q: want a lower-case letter followed by lower-case letters, digits or '_'", name)
		}
	}
	return nil
}

// CQLSchema returns the statements that create the keyspace and every table,
// in order. Every statement is IF NOT EXISTS, so applying them again is a
// no-op: `schema apply` is safe to re-run. (An existing keyspace keeps its
// replication: change it with ALTER KEYSPACE.)
func CQLSchema(keyspace string, opts ReplicationOptions) []string {
	stmts := CQLSchemaStatements(keyspace, opts)
	texts := make([]string, len(stmts))
	for i, s := range stmts {
		texts[i] = s.Text
	}
	return texts
}

// CQLSchemaScript renders the schema as a cqlsh script: every statement
// followed by ';', each table preceded by the reason for its partition key.
func CQLSchemaScript(keyspace string, opts ReplicationOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- tweetindex schema for keyspace %s (generated; apply with `tweetindex schema apply`).\n", keyspace)
	b.WriteString("-- Partition sizes are computed for the 1% stream (5 M tweets/day) and a crisis\n")
	b.WriteString("-- event (50 M tweets/day); every partition stays under 100 MB.\n\n")
	for _, s := range CQLSchemaStatements(keyspace, opts) {
		if s.Table != nil {
			for _, line := range strings.Split(s.Table.Reason, "\n") {
				b.WriteString("-- " + line + "\n")
			}
		}
		b.WriteString(s.Text)
		b.WriteString(";\n\n")
	}
	return b.String()
}

func createKeyspaceText(keyspace string, opts ReplicationOptions) string {
	return "CREATE KEYSPACE IF NOT EXISTS " + keyspace + " WITH replication = " + opts.CQL() + " AND durable_writes = true"
}

func createTableText(keyspace string, t *CQLTable) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + keyspace + "." + t.Name + " (\n")
	for _, c := range t.columns {
		b.WriteString("    " + c.Name + " " + c.Type.String() + ",\n")
	}
	b.WriteString("    PRIMARY KEY ((" + columnNames(t.PartitionKey) + ")")
	if len(t.Clustering) > 0 {
		b.WriteString(", " + columnNames(t.Clustering))
	}
	b.WriteString(")\n)")
	sep := " WITH "
	if len(t.Clustering) > 0 {
		order := make([]string, len(t.Clustering))
		for i, c := range t.Clustering {
			order[i] = c.Name + " ASC"
		}
		b.WriteString(" WITH CLUSTERING ORDER BY (" + strings.Join(order, ", ") + ")")
		sep = "\n    AND "
	}
	b.WriteString(sep + "comment = " + cqlQuote(t.Comment))
	return b.String()
}

func columnNames(cols []CQLColumn) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// cqlQuote renders s as a CQL string literal.
func cqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
