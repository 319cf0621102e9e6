package cassandraio

import (
	"context"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tweetindex/tweetindex/schemas"
)

// ApplySchema creates the keyspace of cfg (with replication opts) and
// every table, as schemas.CQLSchema gives them. Every statement is IF NOT
// EXISTS, so applying again is a no-op and safe; an existing keyspace keeps
// its replication. The driver waits for schema agreement after each change.
func ApplySchema(ctx context.Context, cfg Config, opts schemas.ReplicationOptions) error {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("cassandraio: %w", err)
	}
	return withSession(cfg, func(s *gocql.Session) error {
		for _, stmt := range schemas.CQLSchema(cfg.Keyspace, opts) {
			if err := execRetrying(ctx, cfg, s, stmt); err != nil {
				return fmt.Errorf("cassandraio: apply schema: %w", err)
			}
		}
		return nil
	})
}

// DropKeyspace drops the keyspace of cfg and everything in it, if it
// exists. Tests against a real cluster use it to leave nothing behind.
func DropKeyspace(ctx context.Context, cfg Config) error {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	return withSession(cfg, func(s *gocql.Session) error {
		if err := execRetrying(ctx, cfg, s, schemas.CQLDropKeyspaceStatement(cfg.Keyspace).Text); err != nil {
			return fmt.Errorf("cassandraio: drop keyspace %s: %w", cfg.Keyspace, err)
		}
		return nil
	})
}

func withSession(cfg Config, fn func(*gocql.Session) error) error {
	s, release, err := acquireSession(cfg)
	if err != nil {
		return err
	}
	defer release()
	return fn(s)
}

// execRetrying runs a statement without bind values, retrying as writes do.
func execRetrying(ctx context.Context, cfg Config, s *gocql.Session, stmt string) error {
	for attempt := 0; ; attempt++ {
		err := s.Query(stmt).Consistency(cfg.consistency()).ExecContext(ctx)
		if err == nil || !retriable(err) || attempt >= cfg.MaxRetries || ctx.Err() != nil {
			return err
		}
		if err := sleep(ctx, backoff(attempt, cfg.MinBackoff, cfg.MaxBackoff)); err != nil {
			return err
		}
	}
}
