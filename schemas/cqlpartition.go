package schemas

// The CQL partitions that hold a range of a table's keys: what a reader of
// a Cassandra keyspace walks to read a key range of the embedded store's
// layout. Each function returns the values of the partition key columns
// (CQLTable.PartitionKey order, CQLValues's Go types), the binds of a
// CQLSelectPartition or CQLSelectSlice.
//
//	raw tweets   RawBuckets partitions a minute   CQLRawPartition(minute, bucket)
//	authors      as raw tweets                     CQLRawPartition(minute, bucket)
//	terms        one partition a term, field, hour CQLTermPartition(term, field, hour)
//	frequency    one partition a day               CQLFrequencyPartition(day)
//	geotemporal  one partition a spread and day    CQLGeoPartition(spread, day)
//	edges        RawBuckets partitions a kind and day CQLEdgePartition(kind, day, bucket)
//	termdays     TermDayBuckets partitions a day and field CQLTermDayPartition(day, field, bucket)

// CQLRawPartition returns the partition of raw tweets created in the
// minute that holds Unix second sec, bucket b (0 <= b < RawBuckets): also
// the partition of their TweetAuthors rows, partitioned alike.
func CQLRawPartition(sec int64, b int) []any { return []any{minuteTime(sec), int8(b)} }

// CQLTermPartition returns the partition of term in field for the hour
// that holds Unix second sec.
func CQLTermPartition(term, field string, sec int64) []any {
	return []any{term, field, dayTime(Day(sec)), int8(floorDiv(sec, 3600) % 24)}
}

// CQLFrequencyPartition returns the partition of the frequency rows of
// day d (days since 1970).
func CQLFrequencyPartition(d uint16) []any { return []any{dayTime(d)} }

// CQLGeoPartition returns the partition of the geotemporal rows of a
// spread value and day.
func CQLGeoPartition(spread uint8, d uint16) []any { return []any{int16(spread), dayTime(d)} }

// CQLEdgePartition returns the partition of the edges of kind t on day d,
// bucket b (0 <= b < RawBuckets).
func CQLEdgePartition(t EdgeType, d uint16, b int) []any { return []any{t.Name(), dayTime(d), int8(b)} }
