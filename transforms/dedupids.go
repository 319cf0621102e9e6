package transforms

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// The ids a dedup key remembers: per day, a record of each tweet seen
// (seenTweet) and the row keys of the versions let through (dayIDs); the
// process-wide cache of a key's days between bundles (idCache, idSet),
// spilled when it grows past its budget. DedupFn (dedup.go) keeps them in
// its value state and here.

// dayIDs is what a key remembers of a day: the ids seen and the row keys
// (second of the day and hash, rowKeyOf) of the versions let through, to
// tell a row-key collision when it comes rather than when the day is
// forgotten. rowKeys may hold the row key of a version since replaced: a
// collision then recorded is a row key the query engine reads for nothing,
// never a wrong answer.
type dayIDs struct {
	seen    idTable[seenTweet]
	rowKeys idTable[struct{}]
	// probes are the row keys (rowKeyOf) of the tweets deduplicated under
	// another key (TweetBatch.Probes), by id: a probe's row key is in
	// rowKeys too.
	probes map[uint64]uint64
	// spilled holds the ids and row keys moved out of memory (spill):
	// older than those of seen and rowKeys, which win.
	spilled *spilledIDs
	err     error // the first failure to read spilled
}

// get returns what d remembers of id (nil d: a day without ids).
func (d *dayIDs) get(id uint64) (seenTweet, bool) {
	if d == nil {
		return seenTweet{}, false
	}
	if s, ok := d.seen.get(id); ok || d.spilled == nil {
		return s, ok
	}
	s, ok, err := d.spilled.get(id)
	d.fail(err)
	return s, ok
}

// fail keeps err, if it is the first: ProcessElement fails the bundle
// with it (d.err) once the batch is through.
func (d *dayIDs) fail(err error) {
	if err != nil && d.err == nil {
		d.err = err
	}
}

// keep remembers s for id (unseen: d holds nothing for id) and reports
// whether the row key of s was already taken by another version let
// through.
func (d *dayIDs) keep(id uint64, s seenTweet, unseen bool, day int64) (collided bool) {
	if unseen {
		d.seen.insert(id, s)
	} else {
		d.seen.set(id, s)
	}
	if !keyedHere(id, s, day) {
		return false // its probe finds its collisions (TweetBatch.Probes)
	}
	return !d.addRowKey(s)
}

// keyedHere reports whether the tweet of id, remembered as s under day,
// is deduplicated under the key of its created_at second, as the tweets
// that may share its row key are: its id holds its created_at. Another
// tweet's collisions are found, and counted, by its probe, under that
// key (TweetBatch.Probes). A delete is keyed here.
func keyedHere(id uint64, s seenTweet, day int64) bool {
	if s.deleted() {
		return true
	}
	sec, ok := SnowflakeSecond(id)
	return ok && sec == s.unix(day)
}

// probe remembers the row key of tweet id, deduplicated under another
// key (TweetBatch.Probes), and reports whether another tweet holds it (a
// collision) and whether it is new (to be kept in the bag). A probe of
// the same tweet again (a copy) is neither.
func (d *dayIDs) probe(id uint64, s seenTweet) (collided, kept bool) {
	k := rowKeyOf(s)
	if had, ok := d.probes[id]; ok && had == k {
		return false, false
	}
	collided = !d.addRowKey(s)
	if d.probes == nil {
		d.probes = map[uint64]uint64{}
	}
	d.probes[id] = k
	return collided, true
}

// addRowKey remembers the row key of a version let through (not a
// delete), and reports whether it was new.
func (d *dayIDs) addRowKey(s seenTweet) bool {
	if s.deleted() {
		return true
	}
	k := rowKeyOf(s)
	if d.rowKeys.has(k) {
		return false
	}
	if d.spilled != nil {
		had, err := d.spilled.hasRowKey(k)
		d.fail(err)
		if had {
			return false
		}
	}
	d.rowKeys.insert(k, struct{}{})
	return true
}

// collisions returns how many tweets of the day have the row key of
// another (the same second and hash): n - 1 for n tweets on one key.
func (d *dayIDs) collisions(day int64) (int64, error) {
	if d == nil {
		return 0, nil
	}
	keys := make([]uint64, 0, d.seen.len()+len(d.probes))
	for id, s := range d.seen.all {
		if !s.deleted() && keyedHere(id, s, day) {
			keys = append(keys, rowKeyOf(s))
		}
	}
	for _, k := range d.probes {
		keys = append(keys, k)
	}
	spilled, err := d.spilled.records()
	if err != nil {
		return 0, err
	}
	for ; len(spilled) >= seenRecordLen; spilled = spilled[seenRecordLen:] {
		id, s := readSeen(spilled)
		if !s.deleted() && !d.seen.has(id) && keyedHere(id, s, day) { // a record in memory is newer
			keys = append(keys, rowKeyOf(s))
		}
	}
	slices.Sort(keys)
	var n int64
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			n++
		}
	}
	return n, nil
}

// seenTweet is what a key remembers of a tweet id: the hash of the row
// key of the version it let through and its second within the day, or
// that the id was deleted (seenDeleted in second). Eight bytes: a key
// keeps one for every id of the run (dayIDs).
type seenTweet struct {
	hash   uint32
	second uint32
}

// seenDeleted marks a deleted id in the second of its record (a second of
// the day needs 17 bits).
const seenDeleted = 1 << 31

// seenProbe marks, in the bag, the record of a probe (dayIDs.probe): a
// row key, not an id let through.
const seenProbe = 1 << 30

// deletedSeen is what a key remembers of a deleted id.
var deletedSeen = seenTweet{second: seenDeleted}

func (s seenTweet) deleted() bool { return s.second&seenDeleted != 0 }

func (s seenTweet) probe() bool { return s.second&(seenDeleted|seenProbe) == seenProbe }

func (s seenTweet) asProbe() seenTweet { s.second |= seenProbe; return s }

func (s seenTweet) asTweet() seenTweet { s.second &^= seenProbe; return s }

func (s seenTweet) append(dst []byte, id uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id)
	dst = binary.BigEndian.AppendUint32(dst, s.hash)
	return binary.BigEndian.AppendUint32(dst, s.second)
}

func readSeen(p []byte) (uint64, seenTweet) {
	return binary.BigEndian.Uint64(p), seenTweet{hash: binary.BigEndian.Uint32(p[8:]), second: binary.BigEndian.Uint32(p[12:])}
}

// merge combines two records of one id and day (a bag holds a record per
// version let through): deleted wins, then the smaller row key (second,
// then hash), whatever order the bag returns them in.
func (s seenTweet) merge(other seenTweet, ok bool) seenTweet {
	switch {
	case !ok:
		return s
	case s.deleted() || other.deleted():
		return deletedSeen
	case other.before(0, s, 0):
		return other
	}
	return s
}

// unix returns the created_at (Unix seconds) of a version remembered
// under day.
func (s seenTweet) unix(day int64) int64 {
	return day*int64(DedupBucket/time.Second) + int64(s.second)
}

// before reports whether version s, remembered under day, has a smaller
// row key than version o, remembered under oday (the version rule): an
// earlier created_at second, or the same and a smaller hash. Neither is
// a delete.
func (s seenTweet) before(day int64, o seenTweet, oday int64) bool {
	if a, b := s.unix(day), o.unix(oday); a != b {
		return a < b
	}
	return s.hash < o.hash
}

// compareCopies orders tweets by id, then row key, then bytes: of several
// copies of an id in one batch, the first is the one kept.
func compareCopies(a, b schemas.Tweet) int {
	if a.ID != b.ID {
		if a.ID < b.ID {
			return -1
		}
		return 1
	}
	if c := bytes.Compare(a.RowKey[:], b.RowKey[:]); c != 0 {
		return c
	}
	return bytes.Compare(a.JSON, b.JSON)
}

// newVersion returns a random version other than 0 (no state) and prev.
func newVersion(prev uint64) uint64 {
	for {
		if v := mrand.Uint64(); v != 0 && v != prev {
			return v
		}
	}
}

// newInstanceID returns a random name for one Dedup transform.
func newInstanceID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// maxSeenEntries is how many entries DedupFn lets a key's bag of ids
// grow to before it rewrites them as one.
const maxSeenEntries = 32

// seenCache is the process's copy of the dedup state, by transform
// instance and key.
var seenCache = &idCache{keys: map[idCacheKey]*idSet{}}

type idCache struct {
	mu   sync.Mutex
	keys map[idCacheKey]*idSet
}

type idCacheKey struct {
	instance string
	key      int64
}

// idSet is the ids of one key, by day, as of state version version, whose
// bag has entries entries.
type idSet struct {
	mu      sync.Mutex
	version uint64
	entries int
	days    map[int64]*dayIDs
	// foreign holds, for the ids that have records under a day other
	// than the key's (a version whose created_at is not the day of the
	// time in its id, or an id without one), those days: rare, so that a
	// lookup costs one probe of the key's day for most ids.
	foreign map[uint64][]int64
}

func (s *idSet) reset(version uint64) {
	s.version, s.entries = version, 0
	if len(s.days) > 0 || s.days == nil {
		s.days = make(map[int64]*dayIDs)
	}
	s.foreign = nil
}

// addForeign records that id has a record under day, not the key's day.
func (s *idSet) addForeign(id uint64, day int64) {
	if s.foreign == nil {
		s.foreign = map[uint64][]int64{}
	}
	if days := s.foreign[id]; !slices.Contains(days, day) {
		s.foreign[id] = append(days, day)
	}
}

// dropForeign forgets the records of day, which are forgotten.
func (s *idSet) dropForeign(day int64) {
	for id, days := range s.foreign {
		if i := slices.Index(days, day); i >= 0 {
			if days = slices.Delete(days, i, i+1); len(days) == 0 {
				delete(s.foreign, id)
			} else {
				s.foreign[id] = days
			}
		}
	}
}

// lookup returns what the key remembers of id, under the key's day
// (home) or another, and the day it is remembered under: deleted, if a
// delete of it was seen, else the version with the smallest row key.
func (s *idSet) lookup(home int64, id uint64) (rec seenTweet, day int64, ok bool) {
	if rec, ok = s.days[home].get(id); ok {
		day = home
	}
	for _, d := range s.foreign[id] {
		o, had := s.days[d].get(id)
		switch {
		case !had || ok && rec.deleted():
		case !ok || o.deleted() || o.before(d, rec, day):
			rec, day, ok = o, d, true
		}
	}
	return rec, day, ok
}

// rowKeyOf packs a version's second of the day and hash.
func rowKeyOf(s seenTweet) uint64 { return uint64(s.second)<<32 | uint64(s.hash) }

func (c *idCache) get(instance string, key int64) *idSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := idCacheKey{instance, key}
	s, ok := c.keys[k]
	if !ok {
		s = &idSet{}
		c.keys[k] = s
	}
	return s
}

// sets returns the id sets of instance's keys.
func (c *idCache) sets(instance string) []*idSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sets []*idSet
	for k, s := range c.keys {
		if k.instance == instance {
			sets = append(sets, s)
		}
	}
	return sets
}

// spillSome spills the largest days (spill) until the process holds
// spillBudget/2 ids in memory or no day is worth spilling: current's
// first (the key of the bundle, locked), then those of the other keys
// that are not in use (a key whose lock is held is passed over).
func (f *DedupFn) spillSome(current *idSet) error {
	target := spillBudget / 2
	spillDays := func(s *idSet) error {
		for inMemoryIDs.Load() > target {
			var big *dayIDs
			for _, d := range s.days {
				if d.seen.len() >= minSpill && (big == nil || d.seen.len() > big.seen.len()) {
					big = d
				}
			}
			if big == nil {
				return nil
			}
			if err := big.spill(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := spillDays(current); err != nil {
		return err
	}
	for _, s := range seenCache.sets(f.Instance) {
		if inMemoryIDs.Load() <= target {
			break
		}
		if s == current || !s.mu.TryLock() {
			continue
		}
		err := spillDays(s)
		s.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *idCache) drop(instance string, key int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.keys, idCacheKey{instance, key})
}
