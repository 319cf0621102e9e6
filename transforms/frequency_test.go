package transforms

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/state"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/teststream"

	"github.com/tweetindex/tweetindex/schemas"
)

func init() {
	register.Function2x1(tweetFromSpec)
	register.Function2x1(countsFromSpec)
	register.Function2x1(langTotal)
	register.Function1x2(splitTotal)
	register.Function2x1(maxTotal)
	register.Function2x1(formatTotal)
	register.Function2x1(minuteLangTotal)
}

// splitTotal turns "KEY=N" into (KEY, N).
func splitTotal(s string) (string, int64) {
	k, v, _ := strings.Cut(s, "=")
	n, _ := strconv.ParseInt(v, 10, 64)
	return k, n
}

func maxTotal(a, b int64) int64 { return max(a, b) }

func formatTotal(k string, n int64) string { return fmt.Sprintf("%s=%d", k, n) }

// minuteM is the minute the streaming tests count: 2026-11-01 12:00 UTC.
var minuteM = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// at returns the teststream timestamp (ms) of minuteM plus d.
func at(d time.Duration) int64 { return minuteM.Add(d).UnixMilli() }

// tweetFromSpec turns "ID UNIXSECONDS LANG" into a batch of one tweet.
func tweetFromSpec(spec string, emit func(TweetBatch)) error {
	f := strings.Fields(spec)
	if len(f) != 3 {
		return fmt.Errorf("bad tweet spec %q", spec)
	}
	id, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return err
	}
	sec, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return err
	}
	emit(TweetBatch{Tweets: []schemas.Tweet{{ID: id, CreatedAt: sec, Lang: f[2]}}})
	return nil
}

// spec formats a tweet for tweetFromSpec: id, minuteM plus d, lang.
func spec(id int, d time.Duration, lang string) string {
	return fmt.Sprintf("%d %d %s", id, minuteM.Add(d).Unix(), lang)
}

// TestFrequencyLateTweetRefiresWithTotal streams tweets of two hours
// through TweetFrequency (teststream on prism): the hour's window fires
// when the watermark passes its end, and a tweet that arrives after that,
// within the allowed lateness, fires it again with the accumulated total
// (3, not the 1 of a discarding pane), which is the count that stays
// written.
func TestFrequencyLateTweetRefiresWithTotal(t *testing.T) {
	cfg := teststream.NewConfig()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cfg.AddElements(at(10*time.Second), spec(1, 10*time.Second, "en"), spec(2, 11*time.Second, "en")))
	must(cfg.AddElements(at(20*time.Second), spec(3, 20*time.Second, "ja")))
	must(cfg.AdvanceWatermark(at(time.Hour + time.Second)))                  // the hour of minute M is over: on-time pane
	must(cfg.AddElements(at(30*time.Second), spec(4, 30*time.Second, "en"))) // late for minute M
	must(cfg.AddElements(at(time.Hour+10*time.Second), spec(5, time.Hour+10*time.Second, "en")))
	must(cfg.AdvanceWatermark(at(2 * time.Hour)))
	must(cfg.AddElements(at(40*time.Second), spec(6, 40*time.Second, "ja"))) // late again
	must(cfg.AdvanceWatermarkToInfinity())

	p, s := beam.NewPipelineWithRoot()
	tweets := beam.ParDo(s, tweetFromSpec, teststream.Create(s, cfg))
	cells := TweetFrequency(s, tweets)
	written := beam.WindowInto(s, window.NewGlobalWindows(), beam.ParDo(s, frequencyRowString, cells))
	// Panes may be merged or reordered by the runner; what must hold is
	// that the largest count written per minute and language, the one the
	// table keeps, is the accumulated total (3, not a discarding pane's 1).
	last := beam.ParDo(s, formatTotal, beam.CombinePerKey(s, maxTotal, beam.ParDo(s, splitTotal, written)))
	passert.Equals(s, last, "202611011200/en=3", "202611011200/ja=2", "202611011300/en=1")
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
}

// countsFromSpec turns "LANG:N LANG:N ..." into the counts of minuteM, one
// pane of the window of minuteM's hour.
func countsFromSpec(spec string, emit func(int64, MinuteCounts)) error {
	m := MinuteCounts{Counts: map[string]int64{}}
	for _, f := range strings.Fields(spec) {
		lang, v, ok := strings.Cut(f, ":")
		if !ok {
			return fmt.Errorf("bad counts spec %q", spec)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		m.Counts[schemas.Minute(minuteM.Unix())+lang] = n
	}
	emit(minuteM.Unix(), m)
	return nil
}

// TestGrowingTotalFn feeds panes of one window in the order a runner may
// deliver them (one by one, in order of arrival) and checks which cells
// GrowingTotalFn writes.
func TestGrowingTotalFn(t *testing.T) {
	tests := []struct {
		name  string
		panes []string // "LANG:N ...", in order of arrival
		base  map[string]int64
		want  []string
	}{
		{"growing", []string{"en:1", "en:2", "en:5"}, nil, []string{"en=1", "en=2", "en=5"}},
		{"overtaken pane is dropped", []string{"en:5", "en:3", "en:7"}, nil, []string{"en=5", "en=7"}},
		{"unchanged cells are not rewritten", []string{"en:4", "en:4", "en:4 ja:4"}, nil, []string{"en=4", "ja=4"}},
		{"base is continued", []string{"en:1", "en:3", "en:3 ja:2"}, map[string]int64{"en": 10}, []string{"en=11", "en=13", "ja=2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := teststream.NewConfig()
			for i, spec := range tc.panes {
				// One event per pane, a millisecond apart, in one window.
				if err := cfg.AddElements(at(time.Duration(i)*time.Millisecond), spec); err != nil {
					t.Fatal(err)
				}
			}
			if err := cfg.AdvanceWatermarkToInfinity(); err != nil {
				t.Fatal(err)
			}
			var base FrequencyBase
			for lang, n := range tc.base {
				base.Keys = append(base.Keys, schemas.Minute(minuteM.Unix())+lang)
				base.Counts = append(base.Counts, n)
			}
			p, s := beam.NewPipelineWithRoot()
			panes := beam.ParDo(s, countsFromSpec, teststream.Create(s, cfg))
			panes = beam.WindowInto(s, window.NewFixedWindows(CountWindow), panes)
			cells := beam.ParDo(s, &GrowingTotalFn{Last: state.MakeValueState[[]byte]("last"), Base: base}, panes)
			got := beam.WindowInto(s, window.NewGlobalWindows(), beam.ParDo(s, langTotal, cells))
			passert.Equals(s, got, toAny(tc.want)...)
			if err := ptest.Run(p); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// langTotal renders frequency cells as "LANG=N".
func langTotal(cells []schemas.Cell, emit func(string)) error {
	for _, c := range cells {
		r, err := schemas.DecodeFrequency(c.Key, c.Value)
		if err != nil {
			return err
		}
		emit(fmt.Sprintf("%s=%d", r.Lang, r.Count))
	}
	return nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestFrequencyWindowWidthsAgree counts the same tweets, spread over three
// days, in windows of an hour (streaming runs), a day (bounded runs:
// BoundedCountWindow) and ten minutes: every width writes the same count
// for every minute and language, the tweets' own.
func TestFrequencyWindowWidthsAgree(t *testing.T) {
	var specs []string
	want := map[string]int64{}
	for i := range 600 {
		d := time.Duration(i*i*7919%(72*3600)) * time.Second
		lang := []string{"en", "ja", "und"}[i%3]
		specs = append(specs, spec(i+1, d, lang))
		want[schemas.Minute(minuteM.Add(d).Unix())+" "+lang]++
	}
	var wantCells []string
	for k, n := range want {
		wantCells = append(wantCells, fmt.Sprintf("%s=%d", k, n))
	}
	for _, width := range []time.Duration{CountWindow, BoundedCountWindow, 10 * time.Minute} {
		t.Run(width.String(), func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			tweets := beam.ParDo(s, tweetFromSpec, beam.CreateList(s, specs))
			cells := TweetFrequencyWith(s, tweets, FrequencyOptions{Window: width})
			got := beam.WindowInto(s, window.NewGlobalWindows(), beam.ParDo(s, minuteLangTotal, cells))
			passert.Equals(s, got, toAny(wantCells)...)
			if err := ptest.Run(p); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// minuteLangTotal renders frequency cells as "YYYYMMDDhhmm LANG=N".
func minuteLangTotal(cells []schemas.Cell, emit func(string)) error {
	for _, c := range cells {
		r, err := schemas.DecodeFrequency(c.Key, c.Value)
		if err != nil {
			return err
		}
		emit(fmt.Sprintf("%s %s=%d", r.Minute, r.Lang, r.Count))
	}
	return nil
}

// TestMinuteCountsCoder round-trips counts through their wire format.
func TestMinuteCountsCoder(t *testing.T) {
	in := MinuteCounts{Counts: map[string]int64{"202611011200en": 3, "202611011201ja": 1 << 40, "202611011259": 7}}
	out, err := decodeMinuteCounts(encodeMinuteCounts(in))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(out.Counts) != fmt.Sprint(in.Counts) {
		t.Errorf("decoded %v, want %v", out.Counts, in.Counts)
	}
	if _, err := decodeMinuteCounts(encodeMinuteCounts(in)[:5]); err == nil {
		t.Error("a truncated encoding decoded without error")
	}
}
