package schemas

import "strconv"

// Origin says where a record came from: a file and line, or a Kafka topic,
// partition and offset. It travels with every record so that a dead letter can
// point at the exact input that produced it.
type Origin struct {
	// Source names the input: a file path (with "!member" for a member of a
	// tar or zip archive), or "kafka:TOPIC/PARTITION" for a Kafka partition.
	Source string
	// Line is the 1-based line number in a file, or the offset in a Kafka
	// partition.
	Line int64
}

// String renders the origin as "SOURCE:LINE", e.g. "2018/10/10/20/19.json.bz2:17"
// or "kafka:tweets/3:1234".
func (o Origin) String() string {
	return o.Source + ":" + strconv.FormatInt(o.Line, 10)
}

// Record is one unit of input as a source delivers it: a line of a JSON lines
// file, a whole JSON document, or a Kafka message value. One record may hold
// several tweets (an API response page) or none (a control message).
type Record struct {
	Origin Origin
	Data   []byte
	// Fault, when not empty, says the source failed at this point (for
	// example "truncated gzip stream: unexpected EOF"); Data then holds
	// whatever bytes were read before the failure. The parse stage turns a
	// faulted record into a dead letter with this reason.
	Fault string

	// From and Start are set for a Kafka record: From is the first offset
	// the record accounts for, the offset after the record read before it
	// from its partition (the offsets in between hold no record: transaction
	// markers, compacted or deleted records), and Start is the offset the
	// read of the partition began at. A partition's records tile [Start,
	// last offset + 1) with their ranges [From, Line+1); acknowledging
	// records (Ack) relies on it.
	From, Start int64
	// Gap, for a Kafka read that acknowledges records, says the record is
	// no message: it stands for offsets [From, Line] that hold none
	// (transaction markers, compacted or deleted records) after the last
	// message read, so that the offset after them can be committed. It is
	// acknowledged and counted nowhere.
	Gap bool
	// Part, for a record that is one of those a Kafka message holds (a
	// line of a message of several JSON lines, or what a compressed
	// message holds), is the record's line in the message, from 1: the
	// records of one message share its Origin (partition and offset),
	// which acknowledges them together, and their dead letters name the
	// line (Place). 0 for a record that is a whole message as sent, and
	// for a file's records.
	Part int64
}

// Place returns the origin that the dead letters of the record's bytes
// start from: its Origin, or for a part of a Kafka message the message
// and the line in it ("kafka:tweets/3:1200" line 2, rendered
// "kafka:tweets/3:1200:2").
func (r *Record) Place() Origin {
	if r.Part > 0 {
		return Origin{Source: r.Origin.String(), Line: r.Part}
	}
	return r.Origin
}
