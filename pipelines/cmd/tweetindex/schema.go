package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tweetindex/tweetindex/io/cassandraio"
	"github.com/tweetindex/tweetindex/schemas"
)

const schemaSynopsis = `tweetindex schema print [--keyspace K] [--replication R]
tweetindex schema apply --cassandra HOSTS [--keyspace K] [--replication R]
tweetindex schema copy  --cassandra HOSTS --from-keyspace OLD [--keyspace K]`

const schemaAbout = `print writes the CQL schema (with the reason for each partition key); apply
creates it on a cluster. --replication is SimpleStrategy:N (default SimpleStrategy:1) or
NetworkTopologyStrategy:dc1=3,dc2=3. apply is idempotent (CREATE ... IF NOT
EXISTS) and safe to re-run; it leaves existing tables as they are. copy applies
the schema to --keyspace and copies every row of --from-keyspace into it: the way
to move a keyspace created with an older layout (blob columns where text is now
used) to the current one (README, "Column types").`

func runSchema(args []string) error {
	c := newCommand("schema", schemaSynopsis, schemaAbout)
	fs := c.fs
	keyspace := fs.String("keyspace", "tweetindex", "Cassandra keyspace")
	replication := fs.String("replication", "", "keyspace replication: SimpleStrategy:N or NetworkTopologyStrategy:dc1=3,dc2=3 (default SimpleStrategy:1)")
	hosts := fs.String("cassandra", "", "Cassandra contact points, comma-separated host[:port] (apply, copy)")
	from := fs.String("from-keyspace", "", "keyspace to copy the rows of (copy)")
	var security cassandraSecurityFlags
	security.register(fs)
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "print" && pos[0] != "apply" && pos[0] != "copy") {
		return usagef("want 'schema print', 'schema apply' or 'schema copy', got %q", strings.Join(pos, " "))
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
		if security.given() {
			return usagef("schema print connects to no cluster: leave out the --cassandra-* security flags")
		}
		fmt.Print(schemas.CQLSchemaScript(*keyspace, repl))
		return nil
	}
	if *hosts == "" {
		return usagef("no cluster: pass --cassandra HOSTS")
	}
	cfg := cassandraio.DefaultConfig(cassandraio.ParseHosts(*hosts)...)
	cfg.Keyspace = *keyspace
	if err := security.apply(&cfg, true); err != nil {
		return asUsage(err)
	}
	if verb == "copy" {
		if *from == "" {
			return usagef("copy: pass --from-keyspace OLD (the keyspace to copy) and --keyspace NEW")
		}
		if err := schemas.ValidKeyspace(*from); err != nil {
			return usagef("--from-keyspace: %w", err)
		}
		if *from == *keyspace {
			return usagef("copy: --from-keyspace and --keyspace are both %s", *keyspace)
		}
	}
	ctx := context.Background()
	if err := cassandraio.ApplySchema(ctx, cfg, repl); err != nil {
		return err
	}
	fmt.Printf("schema of keyspace %s applied on %s\n", *keyspace, *hosts)
	if verb != "copy" {
		return nil
	}
	copied, err := cassandraio.CopyKeyspace(ctx, cfg, *from)
	if err != nil {
		return err
	}
	for _, t := range schemas.Tables {
		fmt.Printf("%-16s %d rows copied from %s\n", schemas.CQLTableOf(t).Name, copied[t], *from)
	}
	return nil
}
