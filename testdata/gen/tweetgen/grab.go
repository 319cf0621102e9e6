package tweetgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The grab data set: the bench's tweets spread over days and filed the way
// the Internet Archive's Twitter Stream Grab files them, for trying
// backfills: one bzip2 file of JSON lines per minute of collection,
// YYYY/MM/DD/HH/MM.json.bz2, the last days packed as daily tar files of
// such members (twitter-stream-YYYY-MM-DD.tar). A tweet is collected up
// to 30 s after it was created, so some are filed in the next minute;
// duplicates are collected again later. HOURS.json holds the number of
// distinct tweets created in each hour: what a backfill of that hour
// indexes.

// GrabConfig configures WriteGrab.
type GrabConfig struct {
	// N is how many tweet items to write, duplicate copies included.
	N int
	// Seed seeds the generator: the same Seed writes the same bytes.
	Seed uint64
	// Out is the archive root to write (created if needed).
	Out string
	// Start is the first day (UTC midnight).
	Start time.Time
	// Days is how many days of tweets to write.
	Days int
	// TarDays is how many of the last days are daily tar files
	// (0 <= TarDays <= Days).
	TarDays int
}

// Validate reports whether c can be written.
func (c GrabConfig) Validate() error {
	switch {
	case c.Out == "":
		return errors.New("grab: Out (the archive root, -out) is required")
	case c.N <= 0 || c.Days <= 0 || c.TarDays < 0 || c.TarDays > c.Days:
		return errors.New("grab: want N (-n) > 0, Days (-days) > 0 and 0 <= TarDays (-tar-days) <= Days")
	}
	return nil
}

// WriteGrab writes the grab data set and returns the distinct tweets
// created in each hour ("2006-01-02T15", as HOURS.json holds them) and
// the number of files written. It stops early with ctx's error if ctx
// ends.
func WriteGrab(ctx context.Context, c GrabConfig) (hours map[string]int, files int, err error) {
	if err := c.Validate(); err != nil {
		return nil, 0, err
	}
	o := grabOptions{n: c.N, seed: c.Seed, out: c.Out, start: c.Start, days: c.Days, tarDays: c.TarDays}
	return writeGrab(ctx, o)
}

// grabOptions is a valid GrabConfig.
type grabOptions struct {
	n       int
	seed    uint64
	out     string
	start   time.Time
	days    int
	tarDays int
}

// writeGrab writes the grab data set and returns the tweets per hour.
func writeGrab(ctx context.Context, o grabOptions) (map[string]int, int, error) {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, 0, err
	}
	g := newBenchGen(o.seed, o.n)
	g.startMS = o.start.UnixMilli()
	g.spanMS = int64(o.days) * 24 * time.Hour.Milliseconds()
	minutes := map[int64][]byte{} // by minute of collection
	hours := map[string]int{}
	var buf []byte
	for i := 0; i < o.n; i++ {
		slot := g.startMS + int64(i)*g.spanMS/int64(o.n)
		delay := int64(splitmix(o.seed^uint64(i)) % 30_000)
		var t *tweet
		if g.isDup(i) {
			t = g.tweet(g.source(i))
		} else {
			t = g.tweet(i)
			hours[timeOfMS(t.ms).Format("2006-01-02T15")]++
		}
		filed := (max(slot, t.ms) + delay) / 60_000
		buf = appendV1Tweet(buf[:0], t, styleStream)
		minutes[filed] = append(append(minutes[filed], buf...), '\n')
	}
	keys := make([]int64, 0, len(minutes))
	for m := range minutes {
		keys = append(keys, m)
	}
	slices.Sort(keys)
	firstTar := o.start.AddDate(0, 0, o.days-o.tarDays)
	tars := map[string][]member{}
	files := 0
	for _, m := range keys {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		at := time.Unix(m*60, 0).UTC()
		name := at.Format("2006/01/02/15/04") + ".json.bz2"
		data := bzip2Bytes(minutes[m])
		if at.Before(firstTar) {
			p := filepath.Join(o.out, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, 0, err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return nil, 0, err
			}
			files++
			continue
		}
		day := "twitter-stream-" + at.Format("2006-01-02") + ".tar"
		tars[day] = append(tars[day], member{name: name, data: data, mod: at})
	}
	for day, ms := range tars {
		if err := os.WriteFile(filepath.Join(o.out, day), tarBytes(ms), 0o644); err != nil {
			return nil, 0, err
		}
		files++
	}
	data, _ := json.MarshalIndent(hours, "", "  ")
	if err := os.WriteFile(filepath.Join(o.out, "HOURS.json"), append(data, '\n'), 0o644); err != nil {
		return nil, 0, fmt.Errorf("write HOURS.json: %w", err)
	}
	return hours, files, nil
}
