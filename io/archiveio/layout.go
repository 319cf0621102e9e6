package archiveio

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TimeRange restricts a read to the files and archive members whose path
// says they can hold tweets of [From, To), in Unix seconds (0: open). A
// path that names no time (PathInterval) is not read: a backfill of two
// hours should not read every undated file of an archive again. (An
// archive member that names no time takes its archive's.)
type TimeRange struct {
	From, To int64
}

// IsZero reports whether the range is open on both sides.
func (r TimeRange) IsZero() bool { return r.From == 0 && r.To == 0 }

// Holds reports whether the file or member at p can hold tweets of the
// range: the range is open, or p names a time interval that meets it.
func (r TimeRange) Holds(p string) bool {
	if r.IsZero() {
		return true
	}
	from, to, ok := PathInterval(p)
	if !ok {
		return false
	}
	return (r.To == 0 || from < r.To) && (r.From == 0 || to > r.From)
}

// Select returns the paths of files that can hold tweets of r, in order.
func Select(paths []string, r TimeRange) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if r.Holds(p) {
			out = append(out, p)
		}
	}
	return out
}

var (
	// dirLayout is .../YYYY/MM/DD[/HH[/MM]] as directories, the last one
	// possibly a file name (MM.json.bz2): the Twitter Stream Grab layout.
	dirLayout = regexp.MustCompile(`(?:^|/)((?:19|20|21)\d\d)/(\d\d)/(\d\d)(?:/(\d\d)(?:/(\d\d))?)?(?:[./]|$)`)
	// nameLayout is a day, optionally with hour and minute, in a file
	// name: twitter-stream-2017-01-01.tar, twitter_stream_20170101.tar,
	// 2017-01-01-13.json.gz, 20170101T1305.jsonl.
	nameLayout = regexp.MustCompile(`(?:^|[^0-9])((?:19|20|21)\d\d)[-_]?(\d\d)[-_]?(\d\d)(?:[-_T]?(\d\d)(?:[-_:]?(\d\d))?)?(?:[^0-9]|$)`)
)

// PathInterval returns the time interval [from, to), in Unix seconds, that
// a file or archive member holds judging by its path, and whether the path
// names one. It knows the Internet Archive's Twitter Stream Grab layouts:
//
//	2017/01/01/13/05.json.bz2     one minute
//	2017/01/01/13/                one hour (any file below)
//	twitter-stream-2017-01-01.tar one day (also 20170101, 2017_01_01)
//
// For "archive.tar!member" the member's own path counts, and the
// archive's if the member names no time. The finest time named wins: a
// minute file in a day folder is a minute. Tweets are stamped with their
// collection time, a little after created_at: callers add a margin.
func PathInterval(p string) (from, to int64, ok bool) {
	parts := strings.Split(p, "!")
	for i := len(parts) - 1; i >= 0; i-- {
		if from, to, ok := interval(parts[i]); ok {
			return from, to, true
		}
	}
	return 0, 0, false
}

// interval reads one path (no "!").
func interval(p string) (from, to int64, ok bool) {
	p = strings.ReplaceAll(p, "\\", "/")
	if m := lastMatch(dirLayout, p); m != nil {
		return span(m)
	}
	if m := nameLayout.FindStringSubmatch(path.Base(p)); m != nil {
		return span(m[1:])
	}
	return 0, 0, false
}

// lastMatch returns the submatches (without the whole match) of the last
// match of re in s.
func lastMatch(re *regexp.Regexp, s string) []string {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1][1:]
}

// span turns year, month, day and optional hour and minute into the
// interval they name; out-of-range fields name nothing.
func span(f []string) (from, to int64, ok bool) {
	n := make([]int, 5)
	for i, s := range f[:5] {
		if s == "" {
			n[i] = -1
			continue
		}
		n[i], _ = strconv.Atoi(s)
	}
	year, month, day, hour, minute := n[0], n[1], n[2], n[3], n[4]
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 {
		return 0, 0, false
	}
	start := time.Date(year, time.Month(month), day, max(hour, 0), max(minute, 0), 0, 0, time.UTC)
	if start.Day() != day { // February 30th
		return 0, 0, false
	}
	var end time.Time
	switch {
	case hour < 0:
		end = start.AddDate(0, 0, 1)
	case minute < 0:
		end = start.Add(time.Hour)
	default:
		end = start.Add(time.Minute)
	}
	return start.Unix(), end.Unix(), true
}
