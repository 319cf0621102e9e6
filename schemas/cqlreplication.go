package schemas

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Replication strategies of a keyspace.
const (
	SimpleStrategy          = "SimpleStrategy"
	NetworkTopologyStrategy = "NetworkTopologyStrategy"
)

// ReplicationOptions is the replication of the keyspace. The zero value is
// SimpleStrategy with one replica: right for a single development node,
// wrong for production, which wants NetworkTopologyStrategy with three
// replicas in each data center (ParseReplication("NetworkTopologyStrategy:dc1=3")).
type ReplicationOptions struct {
	// Class is SimpleStrategy (default) or NetworkTopologyStrategy.
	Class string
	// Factor is the replication factor of SimpleStrategy (default 1).
	Factor int
	// DataCenters maps each data center to its number of replicas under
	// NetworkTopologyStrategy.
	DataCenters map[string]int
}

func (o ReplicationOptions) normalized() ReplicationOptions {
	if o.Class == "" {
		o.Class = SimpleStrategy
	}
	if o.Class == SimpleStrategy && o.Factor == 0 {
		o.Factor = 1
	}
	return o
}

// Validate reports whether the options describe a valid replication.
func (o ReplicationOptions) Validate() error {
	o = o.normalized()
	switch o.Class {
	case SimpleStrategy:
		if o.Factor < 1 {
			return fmt.Errorf("replication: SimpleStrategy needs a replication factor >= 1, got %d", o.Factor)
		}
		if len(o.DataCenters) > 0 {
			return fmt.Errorf("replication: SimpleStrategy takes a factor, not data centers (use NetworkTopologyStrategy)")
		}
	case NetworkTopologyStrategy:
		if len(o.DataCenters) == 0 {
			return fmt.Errorf("replication: NetworkTopologyStrategy needs at least one data center, e.g. dc1=3")
		}
		for dc, n := range o.DataCenters {
			if !validDataCenter(dc) {
				return fmt.Errorf("replication: data center name %q: want letters, digits, '_', '-' or '.'", dc)
			}
			if n < 0 {
				return fmt.Errorf("replication: data center %s: negative replication factor %d", dc, n)
			}
		}
	default:
		return fmt.Errorf("replication: class %q: want %s or %s", o.Class, SimpleStrategy, NetworkTopologyStrategy)
	}
	return nil
}

func validDataCenter(dc string) bool {
	if dc == "" || dc == "class" || dc == "replication_factor" {
		return false
	}
	for _, c := range dc {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Map returns the replication map of the keyspace, as system_schema.keyspaces
// holds it: "class" (fully qualified) and the factors as strings.
func (o ReplicationOptions) Map() map[string]string {
	o = o.normalized()
	m := map[string]string{"class": "org.apache.cassandra.locator." + o.Class}
	if o.Class == SimpleStrategy {
		m["replication_factor"] = strconv.Itoa(o.Factor)
	}
	for dc, n := range o.DataCenters {
		m[dc] = strconv.Itoa(n)
	}
	return m
}

// CQL renders the options as the map literal of CREATE KEYSPACE, data
// centers in name order, e.g. {'class': 'SimpleStrategy', 'replication_factor': '1'}.
func (o ReplicationOptions) CQL() string {
	o = o.normalized()
	parts := []string{"'class': " + cqlQuote(o.Class)}
	if o.Class == SimpleStrategy {
		parts = append(parts, "'replication_factor': "+cqlQuote(strconv.Itoa(o.Factor)))
	} else {
		dcs := make([]string, 0, len(o.DataCenters))
		for dc := range o.DataCenters {
			dcs = append(dcs, dc)
		}
		sort.Strings(dcs)
		for _, dc := range dcs {
			parts = append(parts, cqlQuote(dc)+": "+cqlQuote(strconv.Itoa(o.DataCenters[dc])))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// String renders the options as ParseReplication reads them.
func (o ReplicationOptions) String() string {
	o = o.normalized()
	if o.Class == SimpleStrategy {
		return SimpleStrategy + ":" + strconv.Itoa(o.Factor)
	}
	dcs := make([]string, 0, len(o.DataCenters))
	for dc := range o.DataCenters {
		dcs = append(dcs, dc)
	}
	sort.Strings(dcs)
	for i, dc := range dcs {
		dcs[i] = dc + "=" + strconv.Itoa(o.DataCenters[dc])
	}
	return o.Class + ":" + strings.Join(dcs, ",")
}

// ParseReplication parses a replication as a command line gives it:
//
//	3                                  SimpleStrategy, 3 replicas
//	SimpleStrategy:3                   the same
//	NetworkTopologyStrategy:dc1=3,dc2=2
//	dc1=3,dc2=2                        NetworkTopologyStrategy
//
// The empty string gives the zero value (SimpleStrategy, 1 replica).
func ParseReplication(s string) (ReplicationOptions, error) {
	s = strings.TrimSpace(s)
	var o ReplicationOptions
	if s == "" {
		return o, nil
	}
	class, rest, found := strings.Cut(s, ":")
	if !found {
		rest = s
		class = SimpleStrategy
		if strings.Contains(s, "=") {
			class = NetworkTopologyStrategy
		}
	}
	o.Class = class
	switch class {
	case SimpleStrategy:
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil || n < 1 {
			return o, fmt.Errorf("replication %q: SimpleStrategy wants a number of replicas >= 1", s)
		}
		o.Factor = n
	case NetworkTopologyStrategy:
		o.DataCenters = map[string]int{}
		for _, part := range strings.Split(rest, ",") {
			dc, n, ok := strings.Cut(strings.TrimSpace(part), "=")
			f, err := strconv.Atoi(strings.TrimSpace(n))
			if !ok || err != nil {
				return o, fmt.Errorf("replication %q: want DC=REPLICAS[,DC=REPLICAS...]", s)
			}
			o.DataCenters[strings.TrimSpace(dc)] = f
		}
	}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("replication %q: %w", s, err)
	}
	return o, nil
}
