package cassandraio

import (
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/io/cassandraio/cassandratest"
)

// sessionHeld reports whether the process's session registry holds a
// session for cfg.
func sessionHeld(cfg Config) bool {
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	_, ok := sessions[sessionKey(cfg)]
	return ok
}

// TestSessionsSharedAndReleased: configurations that differ only in what
// each statement sets (keyspace, consistency, page size) share one session;
// other cluster settings get their own. The session closes when its last
// holder releases it, a second release of one holder changes nothing, and
// the next acquire connects again.
func TestSessionsSharedAndReleased(t *testing.T) {
	srv, err := cassandratest.New(cassandratest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := DefaultConfig(srv.Addr()).WithDefaults()
	s1, release1, err := acquireSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	perStatement := cfg
	perStatement.Keyspace, perStatement.Consistency, perStatement.PageSize = "other", "ONE", 7
	s2, release2, err := acquireSession(perStatement)
	if err != nil {
		t.Fatal(err)
	}
	if s1 != s2 {
		t.Error("configurations differing only in per-statement settings got two sessions")
	}
	slower := cfg
	slower.Timeout += time.Second
	s3, release3, err := acquireSession(slower)
	if err != nil {
		t.Fatal(err)
	}
	if s3 == s1 {
		t.Error("configurations with different timeouts share a session")
	}

	release1()
	release1() // once per holder: this must not release the other's hold
	if s1.Closed() || !sessionHeld(cfg) {
		t.Fatal("the session closed while a holder remains")
	}
	release2()
	if !s1.Closed() || sessionHeld(cfg) {
		t.Error("the session stayed open after its last holder released it")
	}
	if s3.Closed() {
		t.Error("releasing one cluster's session closed another's")
	}
	release3()

	s4, release4, err := acquireSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer release4()
	if s4 == s1 || s4.Closed() {
		t.Error("an acquire after the last release did not connect again")
	}
}
