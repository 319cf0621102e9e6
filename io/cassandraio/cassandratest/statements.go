package cassandratest

import (
	"crypto/md5"
	"regexp"
	"strconv"
	"strings"

	"github.com/tweetindex/tweetindex/schemas"
)

// stmt is a statement the server accepts: one of the catalog
// (schemas.CQLCatalog, schemas.CQLSchemaStatements, DROP KEYSPACE), a select
// of a system table, or USE.
type stmt struct {
	text string
	id   [16]byte

	cat *schemas.CQLStatement
	sys *sysSelect
	use string

	// limit is the LIMIT of a SELECT * typed by a person (0: none).
	limit int

	// binds and result describe the bind markers and the result columns,
	// as PREPARED and ROWS results report them.
	specKeyspace, specTable string
	binds                   []spec
	pkIndexes               []int
	result                  []spec
}

type spec struct {
	name string
	typ  ctype
}

func (st *stmt) isWrite() bool {
	return st.cat != nil && (st.cat.Kind == schemas.CQLInsert || st.cat.Kind == schemas.CQLDelete)
}

func (st *stmt) isSelect() bool {
	if st.sys != nil {
		return true
	}
	if st.cat == nil {
		return false
	}
	switch st.cat.Kind {
	case schemas.CQLSelectAll, schemas.CQLSelectPartition, schemas.CQLSelectRow, schemas.CQLSelectSlice:
		return true
	}
	return false
}

var (
	useRE      = regexp.MustCompile(`(?i)^use\s+("?)([A-Za-z_]\w*)"?$`)
	keyspaceRE = []*regexp.Regexp{
		regexp.MustCompile(`^INSERT INTO ([a-z]\w*)\.`),
		regexp.MustCompile(`^DELETE FROM ([a-z]\w*)\.`),
		regexp.MustCompile(`^SELECT .* FROM ([a-z]\w*)\.`),
		regexp.MustCompile(`^CREATE TABLE IF NOT EXISTS ([a-z]\w*)\.`),
		regexp.MustCompile(`^CREATE KEYSPACE IF NOT EXISTS ([a-z]\w*) `),
		regexp.MustCompile(`^DROP KEYSPACE IF EXISTS ([a-z]\w*)$`),
	}
	replicationRE = regexp.MustCompile(`WITH replication = \{(.*)\} AND durable_writes = true$`)
	mapEntryRE    = regexp.MustCompile(`^'((?:[^']|'')*)': '((?:[^']|'')*)'$`)
)

// resolve finds the statement of text, sent on a connection whose
// keyspace (USE) is keyspace, or says why it is refused.
func (s *Server) resolve(text, keyspace string) (*stmt, *cqlError) {
	key := text
	if selectStarRE.MatchString(normalize(text)) {
		// SELECT * FROM table may name no keyspace: the connection's.
		key = keyspace + "\x00" + text
	}
	s.mu.Lock()
	st := s.resolved[key]
	s.mu.Unlock()
	if st != nil {
		return st, nil
	}
	st, err := s.parse(text, keyspace)
	if err != nil {
		return nil, err
	}
	st.text = text
	st.id = md5.Sum([]byte(key))
	s.mu.Lock()
	if len(s.resolved) < 1<<16 {
		s.resolved[key] = st
	}
	s.mu.Unlock()
	return st, nil
}

// normalize trims a statement's spaces and final ';'.
func normalize(text string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ";"))
}

// selectStarRE matches SELECT * FROM [keyspace.]table [LIMIT n]: what a
// person types into cqlsh or a driver to look at a table.
var selectStarRE = regexp.MustCompile(`(?is)^select\s+\*\s+from\s+(?:"?(\w+)"?\s*\.\s*)?"?(\w+)"?(?:\s+limit\s+(\d+))?$`)

// parseSelectStar resolves SELECT * FROM [ks.]table [LIMIT n] of a project
// table to the catalog's select of every row (CQLSelectAll), with the
// table's columns in the catalog's order. ok is false when text is not
// such a select.
func parseSelectStar(norm, keyspace string) (st *stmt, ok bool, err *cqlError) {
	m := selectStarRE.FindStringSubmatch(norm)
	if m == nil {
		return nil, false, nil
	}
	ks, name := strings.ToLower(m[1]), strings.ToLower(m[2])
	if ks == "" {
		ks = keyspace
	}
	if ks == "" {
		return nil, true, errInvalid("No keyspace has been specified. USE a keyspace, or set one in the driver")
	}
	if systemKeyspaceNames[ks] {
		return nil, false, nil
	}
	ct := schemas.CQLTableNamed(name)
	if ct == nil || schemas.ValidKeyspace(ks) != nil {
		return nil, true, errInvalid("unconfigured table %s (the tables are %s)", name, cqlTableNames())
	}
	cat := schemas.CQLSelectStatement(ks, ct, schemas.CQLSelectAll)
	st = &stmt{cat: &cat, specKeyspace: ks, specTable: ct.Name}
	for _, r := range cat.Result {
		st.result = append(st.result, spec{r.Name, typeOf(r.Type)})
	}
	if m[3] != "" {
		n, perr := strconv.Atoi(m[3])
		if perr != nil || n <= 0 {
			return nil, true, errInvalid("LIMIT must be strictly positive, not %s", m[3])
		}
		st.limit = n
	}
	return st, true, nil
}

func cqlTableNames() string {
	var names []string
	for _, t := range schemas.CQLTables() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

func (s *Server) parse(text, keyspace string) (*stmt, *cqlError) {
	norm := normalize(text)
	if m := useRE.FindStringSubmatch(norm); m != nil {
		ks := m[2]
		if m[1] == "" {
			ks = strings.ToLower(ks)
		}
		return &stmt{use: ks}, nil
	}
	if sel, ok, err := parseSystemSelect(norm); ok {
		if err != nil {
			s.stats.rejected.Add(1)
			s.logf("cassandratest: refused statement %q: %s", text, err.msg)
			return nil, err
		}
		st := &stmt{sys: sel, specKeyspace: sel.table.keyspace, specTable: sel.table.name}
		for _, c := range sel.columns {
			col := sel.table.columns[c]
			st.result = append(st.result, spec(col))
		}
		st.binds = sel.bindSpecs()
		for _, c := range sel.where {
			if c.bound == 0 && c.column == 0 {
				st.pkIndexes = []int{0}
			}
		}
		return st, nil
	}
	if st, ok, err := parseSelectStar(norm, keyspace); ok {
		if err != nil {
			s.stats.rejected.Add(1)
			s.logf("cassandratest: refused statement %q: %s", text, err.msg)
		}
		return st, err
	}
	if cat := lookupCatalog(text); cat != nil {
		st := &stmt{cat: cat, specKeyspace: cat.Keyspace}
		if cat.Table != nil {
			st.specTable = cat.Table.Name
		}
		for _, b := range cat.Binds {
			st.binds = append(st.binds, spec{b.Name, typeOf(b.Type)})
		}
		for _, r := range cat.Result {
			st.result = append(st.result, spec{r.Name, typeOf(r.Type)})
		}
		st.pkIndexes = cat.PartitionKeyIndexes
		return st, nil
	}
	s.stats.rejected.Add(1)
	s.logf("cassandratest: refused statement %q: not in the tweetindex catalog", text)
	return nil, errInvalid("cassandratest: statement is not in the tweetindex CQL catalog (schemas.CQLCatalog, schemas.CQLSchema); besides it this server answers only SELECT * FROM [keyspace.]table [LIMIT n] and the system tables drivers read: %q", text)
}

// lookupCatalog returns the catalog statement whose text is exactly text.
func lookupCatalog(text string) *schemas.CQLStatement {
	var ks string
	for _, re := range keyspaceRE {
		if m := re.FindStringSubmatch(text); m != nil {
			ks = m[1]
			break
		}
	}
	if ks == "" || schemas.ValidKeyspace(ks) != nil {
		return nil
	}
	if strings.HasPrefix(text, "CREATE KEYSPACE ") {
		opts, ok := parseReplication(text)
		if !ok {
			return nil
		}
		st := schemas.CQLSchemaStatements(ks, opts)[0]
		if st.Text == text {
			return &st
		}
		return nil
	}
	candidates := append(schemas.CQLCatalog(ks), schemas.CQLDropKeyspaceStatement(ks))
	candidates = append(candidates, schemas.CQLSchemaStatements(ks, schemas.ReplicationOptions{})[1:]...)
	for i := range candidates {
		if candidates[i].Text == text {
			return &candidates[i]
		}
	}
	return nil
}

// parseReplication reads the replication map of a CREATE KEYSPACE as
// schemas.ReplicationOptions.CQL writes it.
func parseReplication(text string) (schemas.ReplicationOptions, bool) {
	m := replicationRE.FindStringSubmatch(text)
	if m == nil {
		return schemas.ReplicationOptions{}, false
	}
	entries := map[string]string{}
	for _, part := range strings.Split(m[1], ", ") {
		e := mapEntryRE.FindStringSubmatch(part)
		if e == nil {
			return schemas.ReplicationOptions{}, false
		}
		entries[strings.ReplaceAll(e[1], "''", "'")] = strings.ReplaceAll(e[2], "''", "'")
	}
	var spec strings.Builder
	spec.WriteString(entries["class"] + ":")
	if entries["class"] == schemas.SimpleStrategy {
		spec.WriteString(entries["replication_factor"])
	} else {
		first := true
		for k, v := range entries {
			if k == "class" {
				continue
			}
			if !first {
				spec.WriteString(",")
			}
			first = false
			spec.WriteString(k + "=" + v)
		}
	}
	opts, err := schemas.ParseReplication(spec.String())
	return opts, err == nil
}
