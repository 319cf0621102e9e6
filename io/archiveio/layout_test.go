package archiveio

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestPathInterval(t *testing.T) {
	at := func(s string) int64 {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.Unix()
	}
	tests := []struct {
		path     string
		from, to string // empty: no time named
	}{
		{"grab/2017/01/01/13/05.json.bz2", "2017-01-01T13:05:00Z", "2017-01-01T13:06:00Z"},
		{"/data/2017/01/01/13/05.json.gz", "2017-01-01T13:05:00Z", "2017-01-01T13:06:00Z"},
		{"2017/01/01/13/05.json.bz2", "2017-01-01T13:05:00Z", "2017-01-01T13:06:00Z"},
		{"grab/2017/01/01/13/all.jsonl", "2017-01-01T13:00:00Z", "2017-01-01T14:00:00Z"},
		{"grab/2017/01/31/whole-day.jsonl", "2017-01-31T00:00:00Z", "2017-02-01T00:00:00Z"},
		{"twitter-stream-2017-01-01.tar", "2017-01-01T00:00:00Z", "2017-01-02T00:00:00Z"},
		{"archive/twitter_stream_20161231.tar", "2016-12-31T00:00:00Z", "2017-01-01T00:00:00Z"},
		{"tweets-2020-02-29-23.jsonl.gz", "2020-02-29T23:00:00Z", "2020-03-01T00:00:00Z"},
		{"twitter-stream-2017-01-01.tar!2017/01/01/23/59.json.bz2", "2017-01-01T23:59:00Z", "2017-01-02T00:00:00Z"},
		{"twitter-stream-2017-01-01.tar!01/23/59.json.bz2", "2017-01-01T00:00:00Z", "2017-01-02T00:00:00Z"}, // member names no date: the archive's day
		{"grab/2017/01/01.tar!2017/01/01/00/30.json.bz2", "2017-01-01T00:30:00Z", "2017-01-01T00:31:00Z"},
		{"testdata/sample/v11-stream.jsonl", "", ""},
		{".bench/tweets-300000/part-0007.jsonl.gz", "", ""},
		{"2017/13/01/x.json", "", ""},    // no month 13
		{"2019-02-30.jsonl", "", ""},     // no February 30th
		{"id-12017010112.jsonl", "", ""}, // digits inside a longer number
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			from, to, ok := PathInterval(tc.path)
			if tc.from == "" {
				if ok {
					t.Fatalf("PathInterval = [%s, %s), want no time", time.Unix(from, 0).UTC(), time.Unix(to, 0).UTC())
				}
				return
			}
			if !ok || from != at(tc.from) || to != at(tc.to) {
				t.Fatalf("PathInterval = [%s, %s) %v, want [%s, %s)", time.Unix(from, 0).UTC(), time.Unix(to, 0).UTC(), ok, tc.from, tc.to)
			}
		})
	}
}

func TestSelectKeepsFilesThatCanHoldTheRange(t *testing.T) {
	var files []string
	for h := 0; h < 24; h++ {
		for m := 0; m < 60; m += 15 {
			files = append(files, fmt.Sprintf("grab/2017/01/01/%02d/%02d.json.bz2", h, m))
		}
	}
	files = append(files, "twitter-stream-2016-12-31.tar", "twitter-stream-2017-01-01.tar", "notes.jsonl")
	from := time.Date(2017, 1, 1, 10, 20, 0, 0, time.UTC)
	got := Select(files, TimeRange{From: from.Unix(), To: from.Add(time.Hour).Unix()})
	want := []string{
		"grab/2017/01/01/10/30.json.bz2", "grab/2017/01/01/10/45.json.bz2",
		"grab/2017/01/01/11/00.json.bz2", "grab/2017/01/01/11/15.json.bz2",
		"twitter-stream-2017-01-01.tar",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Select = %q\nwant %q", got, want)
	}
	if got := Select(files, TimeRange{}); len(got) != len(files) {
		t.Errorf("an open range selected %d of %d files", len(got), len(files))
	}
}

// TestRangeSkipsArchiveMembers reads a daily tar of minute files with a
// range: only the members of the range are read.
func TestRangeSkipsArchiveMembers(t *testing.T) {
	dir := t.TempDir()
	var ms []member
	for m := 0; m < 6; m++ {
		ms = append(ms, member{fmt.Sprintf("2017/01/01/00/%02d.json.bz2", m), bz2(t, tweetLines(m*10, 2))})
	}
	p := writeFile(t, dir, "twitter-stream-2017-01-01.tar", tarOf(t, ms...))
	from := time.Date(2017, 1, 1, 0, 2, 0, 0, time.UTC)
	recs, _, _, err := readAll(t, dir, p, Options{Range: TimeRange{From: from.Unix(), To: from.Add(2 * time.Minute).Unix()}})
	if err != nil {
		t.Fatal(err)
	}
	want := concat(
		linesOf("twitter-stream-2017-01-01.tar!2017/01/01/00/02.json.bz2", 1, tweetLines(20, 2)),
		linesOf("twitter-stream-2017-01-01.tar!2017/01/01/00/03.json.bz2", 1, tweetLines(30, 2)),
	)
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Errorf("read\n%v\nwant\n%v", recs, want)
	}
}
