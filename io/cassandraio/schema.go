package cassandraio

import (
	"context"
	"fmt"
	"regexp"
	"strings"

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
		// A table made by an earlier build lacks the columns added since
		// (term_index.positions): add them.
		missing, err := missingColumns(ctx, s, cfg.Keyspace)
		if err != nil {
			return fmt.Errorf("cassandraio: apply schema: %w", err)
		}
		for _, m := range missing {
			stmt := fmt.Sprintf("ALTER TABLE %s.%s ADD %s %s", cfg.Keyspace, m.table, m.col.Name, m.col.Type)
			if err := execRetrying(ctx, cfg, s, stmt); err != nil {
				return fmt.Errorf("cassandraio: apply schema: %w", err)
			}
		}
		return nil
	})
}

// missingColumn is a column of the project's table that the keyspace's
// table lacks.
type missingColumn struct {
	table string
	col   schemas.CQLColumn
}

// missingColumns returns the columns the keyspace's tables of the project
// lack (tables it does not hold aside), read from system_schema.
func missingColumns(ctx context.Context, s *gocql.Session, keyspace string) ([]missingColumn, error) {
	have := map[[2]string]bool{}
	tables := map[string]bool{}
	var table, col string
	iter := s.Query("SELECT table_name, column_name FROM system_schema.columns WHERE keyspace_name = ?", keyspace).IterContext(ctx)
	for iter.Scan(&table, &col) {
		have[[2]string{table, col}], tables[table] = true, true
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading the columns of keyspace %s: %w", keyspace, err)
	}
	var missing []missingColumn
	for _, ct := range schemas.CQLTables() {
		for _, c := range ct.Columns() {
			if tables[ct.Name] && !have[[2]string{ct.Name, c.Name}] {
				missing = append(missing, missingColumn{ct.Name, c})
			}
		}
	}
	return missing, nil
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

// copyChunk is how many cells CopyKeyspace hands the writer at a time.
const copyChunk = 1000

// CopyKeyspace copies every row of every table of keyspace from into the
// keyspace of cfg, which must already hold the tables (ApplySchema): the
// way to move a keyspace to a new layout of the same tables, such as the
// text columns that replaced blobs (docs/cassandra.md, "Column types"). Rows are read
// as cells, byte for byte whatever the source's column types (the driver
// reads a blob into a string), and written with the sink's Writer (batched
// by partition, retried); a TTL is not carried over (cfg.TTL applies). It
// returns the rows copied per table. The copy is a snapshot: rows written
// to the source meanwhile may or may not be in it.
func CopyKeyspace(ctx context.Context, cfg Config, from string) (map[schemas.Table]int64, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := schemas.ValidKeyspace(from); err != nil {
		return nil, fmt.Errorf("cassandraio: copy from: %w", err)
	}
	if from == cfg.Keyspace {
		return nil, fmt.Errorf("cassandraio: copy keyspace %s onto itself", from)
	}
	src := cfg
	src.Keyspace = from
	r, err := NewReader(src)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	w, err := NewWriter(cfg)
	if err != nil {
		return nil, err
	}
	copied := map[schemas.Table]int64{}
	var cells []schemas.Cell
	err = func() error {
		for _, t := range schemas.Tables {
			err := r.ScanAll(ctx, t, func(key, value []byte) error {
				cells = append(cells, schemas.Cell{Table: t, Key: key, Value: value})
				copied[t]++
				if len(cells) < copyChunk {
					return nil
				}
				err := w.Write(ctx, cells)
				cells = nil // the writer keeps the cells until they are acknowledged
				return err
			})
			if err != nil {
				return fmt.Errorf("cassandraio: copy %s from %s to %s: %w", t.Name(), from, cfg.Keyspace, err)
			}
		}
		return w.Write(ctx, cells)
	}()
	if cerr := w.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return copied, nil
}

// schemaErrors are what Cassandra says when the keyspace or a table is
// missing or is not the project's.
var schemaErrors = regexp.MustCompile(`(?i)keyspace .*does not exist|unconfigured table|table .* does not exist|undefined column|unknown identifier|no keyspace has been specified`)

// IsSchemaError reports whether msg (an error's text, a runner's report)
// is Cassandra saying that the keyspace or one of its tables is missing or
// is not the project's: what tweetindex schema apply mends.
func IsSchemaError(msg string) bool { return schemaErrors.MatchString(msg) }

// CheckTables reports, in one line, the project's tables the keyspace of
// cfg lacks (a keyspace created by an older build, before a table was
// added), or that the keyspace does not exist: what tweetindex schema
// apply mends. A run checks before it starts, so that it does not fail
// at its first write to the missing table. It reads system_schema itself,
// not the driver's metadata, which an open session refreshes only after
// a schema change event.
func CheckTables(ctx context.Context, cfg Config) error {
	cfg, s, release, err := openSession(cfg)
	if err != nil {
		return err
	}
	defer release()
	var name string
	iter := s.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", cfg.Keyspace).IterContext(ctx)
	found := iter.Scan(&name)
	if err := iter.Close(); err != nil {
		return fmt.Errorf("reading the schema of keyspace %s: %w", cfg.Keyspace, err)
	}
	if !found {
		return fmt.Errorf("keyspace %s does not exist on %s", cfg.Keyspace, strings.Join(cfg.Hosts, ","))
	}
	have := map[string]bool{}
	iter = s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", cfg.Keyspace).IterContext(ctx)
	for iter.Scan(&name) {
		have[name] = true
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("reading the tables of keyspace %s: %w", cfg.Keyspace, err)
	}
	var missing []string
	for _, ct := range schemas.CQLTables() {
		if !have[ct.Name] {
			missing = append(missing, ct.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("keyspace %s has no table %s (made by a build before it): create it with: tweetindex schema apply --cassandra HOSTS --keyspace %s", cfg.Keyspace, strings.Join(missing, ", "), cfg.Keyspace)
	}
	cols, err := missingColumns(ctx, s, cfg.Keyspace)
	if err != nil {
		return err
	}
	for _, m := range cols {
		missing = append(missing, m.table+"."+m.col.Name)
	}
	if len(missing) > 0 {
		return fmt.Errorf("keyspace %s has no column %s (its tables were made by a build before it): add it with: tweetindex schema apply --cassandra HOSTS --keyspace %s", cfg.Keyspace, strings.Join(missing, ", "), cfg.Keyspace)
	}
	return nil
}
