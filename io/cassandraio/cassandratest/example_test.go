package cassandratest_test

import (
	"errors"
	"fmt"
	"log"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
	"github.com/tweetindex/tweetindex/schemas"
)

// Start a server, create the schema with gocql, and see an injected write
// timeout, then the row written on the next attempt.
func Example() {
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	cluster := gocql.NewCluster(srv.Addr())
	cluster.ProtoVersion = 4
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	for _, stmt := range schemas.CQLSchema("demo", schemas.ReplicationOptions{}) {
		if err := session.Query(stmt).Exec(); err != nil {
			log.Fatal(err)
		}
	}

	cell := schemas.MetaRow{Name: "param/index", Value: []byte(`{"spread_count":255}`)}.Cell()
	values, err := schemas.CQLValues(nil, cell)
	if err != nil {
		log.Fatal(err)
	}
	insert := schemas.CQLInsertStatement("demo", schemas.CQLMeta).Text
	srv.InjectFault(cassandratest.Fault{Kind: cassandratest.WriteTimeout})
	for attempt := 1; ; attempt++ {
		err := session.Query(insert, append(values, int32(0))...).Exec()
		var timeout *gocql.RequestErrWriteTimeout
		if errors.As(err, &timeout) {
			fmt.Printf("attempt %d: write timeout at %s\n", attempt, timeout.Consistency)
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("attempt %d: written\n", attempt)
		break
	}
	cells, err := srv.Cells("demo", schemas.TableMeta)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s = %s\n", cells[0].Key, cells[0].Value)
	fmt.Println("faults served:", srv.Stats().Faults[cassandratest.WriteTimeout])
	// Output:
	// attempt 1: write timeout at QUORUM
	// attempt 2: written
	// param/index = {"spread_count":255}
	// faults served: 1
}
