package serve

import (
	"fmt"
	"net"
	"time"
)

// Config is how a server listens and what it allows. The zero value of
// each field is its default (Defaults).
type Config struct {
	// Addr is the address to listen on, host:port (default
	// 127.0.0.1:8080: this machine only).
	Addr string
	// Timeout bounds each request, the answer's streaming included: an
	// answer not done by then ends (504 if nothing was sent yet). A
	// client that does not read the answer fails its writes a little
	// later (as long again, at most 5 s more), which ends it too.
	Timeout time.Duration
	// MaxInFlight is how many questions are answered at once; a request
	// beyond them waits for one to end, up to its Timeout (then 503).
	MaxInFlight int
	// MaxQuery is the longest query string accepted, in bytes (414 past it).
	MaxQuery int
	// Refresh is how often the server looks for a newer snapshot of a
	// store a stream is writing (and renews its view of a keyspace).
	Refresh time.Duration
	// Grace is how long a shutdown waits for the answers under way.
	Grace time.Duration
}

// Defaults are the values of the fields left zero.
var Defaults = Config{
	Addr:        "127.0.0.1:8080",
	Timeout:     60 * time.Second,
	MaxInFlight: 32,
	MaxQuery:    8 << 10,
	Refresh:     2 * time.Second,
	Grace:       10 * time.Second,
}

// withDefaults returns c with each zero field set to its default.
func (c Config) withDefaults() Config {
	d := Defaults
	if c.Addr == "" {
		c.Addr = d.Addr
	}
	if c.Timeout == 0 {
		c.Timeout = d.Timeout
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = d.MaxInFlight
	}
	if c.MaxQuery == 0 {
		c.MaxQuery = d.MaxQuery
	}
	if c.Refresh == 0 {
		c.Refresh = d.Refresh
	}
	if c.Grace == 0 {
		c.Grace = d.Grace
	}
	return c
}

// Validate says, in one line naming the flag, what is wrong with c.
func (c Config) Validate() error {
	c = c.withDefaults()
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("--addr %q: want host:port (127.0.0.1:8080; :8080 listens on every interface)", c.Addr)
	}
	switch {
	case c.Timeout < 0:
		return fmt.Errorf("--timeout %s: want a positive duration (60s)", c.Timeout)
	case c.MaxInFlight < 0:
		return fmt.Errorf("--max-inflight %d: want 1 or more", c.MaxInFlight)
	case c.Refresh < 0:
		return fmt.Errorf("--refresh %s: want a positive duration (2s)", c.Refresh)
	case c.Grace < 0:
		return fmt.Errorf("--grace %s: want a positive duration (10s)", c.Grace)
	case c.MaxQuery < 0:
		return fmt.Errorf("max query %d: want a positive size", c.MaxQuery)
	}
	return nil
}
