package main

import (
	"cmp"
	"context"
	"fmt"
	"github.com/tweetindex/tweetindex/io/sink"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tweetindex/tweetindex/pipelines/maintain"
	"github.com/tweetindex/tweetindex/schemas"
)

// writeChanges writes to w how s differs from prev: one header line with
// the total number of tweets counted, then, for at most maxMinutes of the
// minutes whose counts changed (the latest first), the minute's total, its
// growth and its languages by count. It writes nothing if nothing changed.
func writeChanges(w io.Writer, s, prev maintain.FrequencySnapshot, now time.Time, maxMinutes int) error {
	var changed []string
	for m, langs := range s {
		for l, c := range langs {
			if prev[m][l] != c {
				changed = append(changed, m)
				break
			}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	slices.Sort(changed)
	slices.Reverse(changed)
	total, before := s.Total(""), prev.Total("")
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %d tweets counted in %d minutes (%+d); changed minutes:\n", now.Format("15:04:05"), total, len(s), total-before)
	for i, m := range changed {
		if i == maxMinutes {
			fmt.Fprintf(&b, "  ... and %d more\n", len(changed)-i)
			break
		}
		langs := make([]string, 0, len(s[m]))
		for l := range s[m] {
			langs = append(langs, l)
		}
		slices.SortFunc(langs, func(a, b string) int {
			return cmp.Or(cmp.Compare(s[m][b], s[m][a]), cmp.Compare(a, b))
		})
		var parts []string
		for _, l := range langs {
			parts = append(parts, fmt.Sprintf("%s %d", l, s[m][l]))
		}
		t, _ := time.Parse(schemas.MinuteLayout, m)
		n := s.Total(m)
		fmt.Fprintf(&b, "  %s  %4d (%+d)  %s\n", t.Format("2006-01-02 15:04"), n, n-prev.Total(m), strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// watchedMinute is one changed minute of a --watch record in JSON.
type watchedMinute struct {
	Minute string           `json:"minute"` // YYYY-MM-DDThh:mmZ
	Count  int64            `json:"count"`
	Change int64            `json:"change"`
	Langs  map[string]int64 `json:"langs"`
}

// logChanges logs what writeChanges writes, as one record: msg "counts",
// the total counted, its change, the minutes counted and the changed
// minutes (at most maxMinutes, latest first; changed_minutes says how
// many changed in all). Nothing if nothing changed.
func logChanges(l *slog.Logger, s, prev maintain.FrequencySnapshot, now time.Time, maxMinutes int) {
	var b strings.Builder
	writeChanges(&b, s, prev, now, maxMinutes)
	if b.Len() == 0 {
		return
	}
	var changed []watchedMinute
	n := 0
	for m, langs := range s {
		if !maps.Equal(langs, prev[m]) {
			n++
			t, _ := time.Parse(schemas.MinuteLayout, m)
			changed = append(changed, watchedMinute{Minute: t.Format("2006-01-02T15:04Z"), Count: s.Total(m), Change: s.Total(m) - prev.Total(m), Langs: langs})
		}
	}
	slices.SortFunc(changed, func(a, b watchedMinute) int { return cmp.Compare(b.Minute, a.Minute) })
	if len(changed) > maxMinutes {
		changed = changed[:maxMinutes]
	}
	total := s.Total("")
	l.Info("counts", "tweets_counted", total, "change", total-prev.Total(""), "minutes", len(s),
		"changed_minutes", n, "changed", changed, line(b.String()))
}

// watchFrequency prints how the TweetFrequency table of src grows (see
// writeChanges, at most 8 minutes a time) to w, every
// interval, until stop is called; stop prints once more, then returns. A
// streaming run reads the store it writes this way: the embedded store is
// shared within a process.
func watchFrequency(src sink.Reader, every time.Duration, l *slog.Logger) (stop func()) {
	const maxMinutes = 8
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	prev := maintain.FrequencySnapshot{}
	tick := func() {
		snap, err := maintain.ReadFrequency(ctx, src)
		if err != nil {
			if ctx.Err() == nil {
				l.Warn("watch", "error", err.Error(), line(fmt.Sprintf("watch: %v", err)))
			}
			return
		}
		logChanges(l, snap, prev, time.Now(), maxMinutes)
		prev = snap
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			ctx = context.Background()
			tick()
		})
	}
}
