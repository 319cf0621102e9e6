package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/schemas"
)

const schemaUsage = `Usage:
  tweetindex schema print [--keyspace K] [--replication R]
  tweetindex schema apply --cassandra HOSTS [--keyspace K] [--replication R]

--replication is SimpleStrategy:N (default SimpleStrategy:1) or
NetworkTopologyStrategy:dc1=3,dc2=3. apply is idempotent (CREATE ... IF NOT
EXISTS) and safe to re-run.
`

func runSchema(args []string) error {
	if len(args) == 0 || (args[0] != "print" && args[0] != "apply") {
		fmt.Fprint(os.Stderr, schemaUsage)
		return fmt.Errorf("want 'schema print' or 'schema apply'")
	}
	verb := args[0]
	fs := flag.NewFlagSet("schema "+verb, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), schemaUsage, "\n"); fs.PrintDefaults() }
	keyspace := fs.String("keyspace", "tweetindex", "Cassandra keyspace")
	replication := fs.String("replication", "", "keyspace replication: SimpleStrategy:N or NetworkTopologyStrategy:dc1=3,dc2=3 (default SimpleStrategy:1)")
	hosts := fs.String("cassandra", "", "Cassandra contact points, comma-separated host[:port] (apply)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	repl, err := schemas.ParseReplication(*replication)
	if err != nil {
		return fmt.Errorf("--replication: %w", err)
	}
	if err := schemas.ValidKeyspace(*keyspace); err != nil {
		return fmt.Errorf("--keyspace: %w", err)
	}
	if verb == "print" {
		fmt.Print(schemas.CQLSchemaScript(*keyspace, repl))
		return nil
	}
	if *hosts == "" {
		return fmt.Errorf("no cluster: pass --cassandra HOSTS")
	}
	cfg := cassandraio.DefaultConfig(cassandraio.ParseHosts(*hosts)...)
	cfg.Keyspace = *keyspace
	if err := cassandraio.ApplySchema(context.Background(), cfg, repl); err != nil {
		return err
	}
	fmt.Printf("schema of keyspace %s applied on %s\n", *keyspace, *hosts)
	return nil
}
