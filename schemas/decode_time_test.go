package schemas

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestParseCreatedAtFastPaths checks the hand-written parsers against
// time.Parse on random times in both API layouts.
func TestParseCreatedAtFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20000; i++ {
		tm := time.Unix(r.Int64N(unix(2149, 12, 31, 0, 0, 0)), int64(r.IntN(1e9))).UTC()
		for _, s := range []string{
			tm.Format(time.RubyDate),
			tm.Format("2006-01-02T15:04:05.000Z"),
			tm.Format("2006-01-02T15:04:05Z"),
			tm.Format(time.RFC3339Nano),
		} {
			want, err := time.Parse(layoutOf(s), s)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := parseCreatedAt([]byte(s))
			if !ok || got != want.Unix() {
				t.Fatalf("parseCreatedAt(%q) = %d, %v; want %d", s, got, ok, want.Unix())
			}
		}
	}
}

func layoutOf(s string) string {
	if s[0] >= '0' && s[0] <= '9' {
		return time.RFC3339
	}
	return time.RubyDate
}

// TestParseCreatedAtAgreesWithTime checks odd inputs: whatever the fast
// path does, the result must be what time.Parse gives.
func TestParseCreatedAtAgreesWithTime(t *testing.T) {
	for _, s := range []string{
		"Wed Oct 10 20:19:24 +0000 2018",
		"Wed Feb 29 20:19:24 +0000 2019",
		"Wed Feb 29 20:19:24 +0000 2020",
		"Wed Apr 31 20:19:24 +0000 2020",
		"Xyz Oct 10 20:19:24 +0000 2018",
		"wed oct 10 20:19:24 +0000 2018",
		"Wed Oct 10 20:19:60 +0000 2018",
		"Wed Oct 10 20:60:00 +0000 2018",
		"Wed Oct 00 20:19:24 +0000 2018",
		"Wed Oct 10 20:19:24 +0130 2018",
		"Wed Oct 10 20:19:24 -1200 2018",
		"Wed Oct 10 20:19:24 +0000 0999",
		"Wed Oct  1 20:19:24 +0000 2018",
		"2018-10-10T20:19:24.1234567891Z",
		"2018-10-10T20:19:24.Z",
		"2018-10-10T20:19:24+00:00",
		"2018-10-10T20:19:24-07:00",
		"2018-10-10T20:19:24z",
		"2018-10-10t20:19:24Z",
		"2018-02-29T20:19:24Z",
		"2016-02-29T20:19:24Z",
		"2018-00-10T20:19:24Z",
		"2018-10-10T24:00:00Z",
		"0000-01-01T00:00:00Z",
		"1969-12-31T23:59:59Z",
		"2018-10-10 20:19:24Z",
		"2018-10-10T20:19Z",
		"",
		"  2018-10-10T20:19:24Z ",
	} {
		got, ok := parseCreatedAt([]byte(s))
		want, wantOK := int64(0), false
		for _, layout := range []string{time.RubyDate, time.RFC3339} {
			if tm, err := time.Parse(layout, trimmed(s)); err == nil {
				want, wantOK = tm.Unix(), true
				break
			}
		}
		if ok != wantOK || got != want {
			t.Errorf("parseCreatedAt(%q) = %d, %v; time.Parse gives %d, %v", s, got, ok, want, wantOK)
		}
	}
}

func trimmed(s string) string {
	i, j := trimSpace([]byte(s))
	return s[i:j]
}

func TestDaysFromCivil(t *testing.T) {
	for d := int64(-1000); d < 70000; d += 13 {
		tm := time.Unix(d*86400, 0).UTC()
		if tm.Year() < 1 {
			continue
		}
		if got := daysFromCivil(tm.Year(), int(tm.Month()), tm.Day()); got != d {
			t.Fatalf("daysFromCivil(%v) = %d, want %d", tm, got, d)
		}
	}
}
