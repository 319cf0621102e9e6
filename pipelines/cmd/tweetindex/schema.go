package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/schemas"
)

const schemaSynopsis = `tweetindex schema print [--keyspace K] [--replication R]
tweetindex schema apply --cassandra HOSTS [--keyspace K] [--replication R]`

const schemaAbout = `print writes the CQL schema (with the reason for each partition key); apply
creates it on a cluster. --replication is SimpleStrategy:N (default SimpleStrategy:1) or
NetworkTopologyStrategy:dc1=3,dc2=3. apply is idempotent (CREATE ... IF NOT
EXISTS) and safe to re-run.`

func runSchema(args []string) error {
	c := newCommand("schema", schemaSynopsis, schemaAbout)
	fs := c.fs
	keyspace := fs.String("keyspace", "tweetindex", "Cassandra keyspace")
	replication := fs.String("replication", "", "keyspace replication: SimpleStrategy:N or NetworkTopologyStrategy:dc1=3,dc2=3 (default SimpleStrategy:1)")
	hosts := fs.String("cassandra", "", "Cassandra contact points, comma-separated host[:port] (apply)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "print" && pos[0] != "apply") {
		return usagef("want 'schema print' or 'schema apply', got %q", strings.Join(pos, " "))
	}
	verb := pos[0]
	repl, err := schemas.ParseReplication(*replication)
	if err != nil {
		return usagef("--replication: %w", err)
	}
	if err := schemas.ValidKeyspace(*keyspace); err != nil {
		return usagef("--keyspace: %w", err)
	}
	if verb == "print" {
		fmt.Print(schemas.CQLSchemaScript(*keyspace, repl))
		return nil
	}
	if *hosts == "" {
		return usagef("no cluster: pass --cassandra HOSTS")
	}
	cfg := cassandraio.DefaultConfig(cassandraio.ParseHosts(*hosts)...)
	cfg.Keyspace = *keyspace
	if err := cassandraio.ApplySchema(context.Background(), cfg, repl); err != nil {
		return err
	}
	fmt.Printf("schema of keyspace %s applied on %s\n", *keyspace, *hosts)
	return nil
}
