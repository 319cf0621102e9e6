package schemas_test

import (
	"fmt"

	"github.com/tweetindex/tweetindex/schemas"
)

// The schema of a keyspace replicated three times in one data center.
func ExampleCQLSchema() {
	opts, err := schemas.ParseReplication("NetworkTopologyStrategy:dc1=3")
	if err != nil {
		panic(err)
	}
	stmts := schemas.CQLSchema("tweetindex", opts)
	fmt.Println(stmts[0])
	fmt.Println(stmts[3])
	// Output:
	// CREATE KEYSPACE IF NOT EXISTS tweetindex WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3'} AND durable_writes = true
	// CREATE TABLE IF NOT EXISTS tweetindex.tweet_frequency (
	//     day date,
	//     minute timestamp,
	//     lang text,
	//     tweets bigint,
	//     PRIMARY KEY ((day), minute, lang)
	// ) WITH CLUSTERING ORDER BY (minute ASC, lang ASC)
	//     AND comment = 'TweetFrequency: day -> (minute, lang) -> absolute tweet count'
}

// A cell maps to the bind values of its table's insert, and back.
func ExampleCQLValues() {
	cell := schemas.FrequencyRow{Minute: "201810102019", Lang: "en", Count: 42}.Cell()
	ins := schemas.CQLInsertStatement("tweetindex", schemas.CQLFrequency)
	values, err := schemas.CQLValues(nil, cell)
	if err != nil {
		panic(err)
	}
	fmt.Println(ins.Text)
	fmt.Printf("%v %v %s %v\n", values[0], values[1], values[2], values[3])
	back, err := schemas.CellFromCQL(schemas.CQLFrequency, values)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s=%s\n", back.Key, back.Value)
	// Output:
	// INSERT INTO tweetindex.tweet_frequency (day, minute, lang, tweets) VALUES (?, ?, ?, ?) USING TTL ?
	// 2018-10-10 00:00:00 +0000 UTC 2018-10-10 20:19:00 +0000 UTC en 42
	// 201810102019en=42
}
