package transforms

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tweetindex/tweetindex/schemas"
)

// Compliance notices other than deletes (scrub_geo, status_withheld,
// user_withheld, v2 compliance events other than delete) are recorded in
// the metadata table, a row each, so that none is dropped unseen:
// "notice/<kind>/<id>" (and "/<up_to id>" for scrub_geo), the id a
// zero-padded 20-digit decimal, the value the message's bytes. A
// scrub_geo also leaves a mark under schemas.ScrubGeoPrefix, which the run applies
// when its pipeline is done (job.Run) and then removes.

// Scrub_geo marks (schemas.ScrubGeoPrefix): "scrubgeo/<user id>/<up_to
// id>", both zero-padded to 20 digits. A v2 scrub_geo event, whose id may
// be a user's or a tweet's, is marked with the largest up_to
// (ScrubGeoAll): all the user's tweets, and the tweet of that id.

// ScrubGeoAll is the up_to of a v2 scrub_geo event's mark.
const ScrubGeoAll = math.MaxUint64

// NoticeCells appends the metadata cells of notices to dst: a record of
// each, and a scrub_geo mark for each scrub_geo.
func NoticeCells(dst []schemas.Cell, notices []schemas.Notice) []schemas.Cell {
	for _, n := range notices {
		name := fmt.Sprintf("%s%s/%020d", schemas.NoticePrefix, n.Kind, n.ID)
		if n.Kind == "scrub_geo" {
			upTo := n.UpTo
			if n.V2 {
				upTo = ScrubGeoAll
			}
			name += fmt.Sprintf("/%020d", upTo)
			dst = append(dst, schemas.MetaRow{Name: ScrubGeoMark(n.ID, upTo)}.Cell())
		}
		dst = append(dst, schemas.MetaRow{Name: name, Value: bytes.Clone(n.Raw)}.Cell())
	}
	return dst
}

// ScrubGeoNoticePrefix returns the prefix of the names of the scrub_geo
// notices recorded for id: a v1.1 message's user, or a v2 event's id
// (a user's or a tweet's). ParseScrubGeoNotice reads their up_to.
func ScrubGeoNoticePrefix(id uint64) string {
	return fmt.Sprintf("%sscrub_geo/%020d/", schemas.NoticePrefix, id)
}

// ParseScrubGeoNotice returns the id and up_to of a scrub_geo notice's
// name (ScrubGeoAll for a v2 event).
func ParseScrubGeoNotice(name string) (id, upTo uint64, ok bool) {
	return parseIDPair(name, schemas.NoticePrefix+"scrub_geo/")
}

// GeoScrubbed reports whether a scrub_geo notice recorded in the
// metadata table of sink (by any run) took the location of stored tweet
// t: one of its author's up to an id no smaller than t's, or a v2 event
// naming t (or its author). The tables hold no geo cell of such a tweet,
// and a cell it shares with another tweet of its row key (a collision)
// must not get its point back when the other goes. Two reads of a few
// metadata rows; asked only for the tweets that stay under a row key
// when another goes.
func GeoScrubbed(ctx context.Context, sink Identities, t *schemas.Tweet) (bool, error) {
	names := []uint64{t.ID}
	user, hasUser := schemas.TweetUserID(t.JSON)
	if hasUser {
		names = append(names, user)
	}
	found := false
	for _, n := range names {
		prefix := ScrubGeoNoticePrefix(n) // ends in '/'
		err := sink.ScanMeta(ctx, prefix, prefix[:len(prefix)-1]+"0", func(name string) error {
			named, upTo, ok := ParseScrubGeoNotice(name)
			if ok && (named == t.ID || hasUser && named == user && t.ID <= upTo) {
				found = true
			}
			return nil
		})
		if err != nil {
			return false, fmt.Errorf("reading the scrub_geo notices: %w", err)
		}
	}
	return found, nil
}

// ScrubGeoMark returns the name of the mark of a scrub_geo of user's
// tweets up to upTo.
func ScrubGeoMark(user, upTo uint64) string {
	return fmt.Sprintf("%s%020d/%020d", schemas.ScrubGeoPrefix, user, upTo)
}

// ParseScrubGeoMark returns the user and up_to of a scrub_geo mark's name.
func ParseScrubGeoMark(name string) (user, upTo uint64, ok bool) {
	return parseIDPair(name, schemas.ScrubGeoPrefix)
}

// parseIDPair returns the two numbers of a name that is prefix, a number,
// '/' and a number.
func parseIDPair(name, prefix string) (a, b uint64, ok bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, 0, false
	}
	x, y, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(x, 10, 64)
	b, err2 := strconv.ParseUint(y, 10, 64)
	return a, b, err1 == nil && err2 == nil
}
