package tweetgen

import (
	"strconv"
	"time"
)

// v2 output modes.
const (
	v2Page     = iota // a tweet in a page's data: author_id, geo.place_id
	v2Flat            // a flattened twarc2 tweet: author, place and retweeted tweet inlined
	v2Included        // a tweet in includes.tweets
	v2FlatRef         // a referenced tweet inside a flattened one: author inlined, no __twarc
)

// twarcVersion is the twarc version the __twarc members name.
const twarcVersion = "2.14.0"

// appendV2Tweet appends t as an API v2 tweet object in the given mode.
func appendV2Tweet(b []byte, t *tweet, mode int, retrieved time.Time) []byte {
	b = append(b, `{"edit_history_tweet_ids":["`...)
	b = strconv.AppendUint(b, t.id, 10)
	b = append(b, `"]`...)
	b = appendKStr(b, "lang", t.lang, false)
	b = appendKUintStr(b, "author_id", t.user.id)
	conv := t.id
	if t.replyTo != nil {
		conv = t.replyTo.id
		b = appendKUintStr(b, "in_reply_to_user_id", t.replyTo.user.id)
	}
	b = appendKUintStr(b, "conversation_id", conv)
	b = appendKUintStr(b, "id", t.id)
	b = append(b, `,"created_at":"`...)
	b = appendISODate(b, t.created())
	b = append(b, '"')
	text, ents, shift, maxEnd := t.text, t.ents, 0, 1<<30
	var rtUser *user
	if t.rt != nil {
		var cut int
		text, cut = rtText(t)
		ents, shift, maxEnd = t.rt.ents, runeLen("RT @"+t.rt.user.screen+": "), cut
		rtUser = t.rt.user
	}
	b = appendKStr(b, "text", text, false)
	b = append(b, `,"public_metrics":{"retweet_count":`...)
	b = strconv.AppendInt(b, int64(t.retweets), 10)
	b = append(b, `,"reply_count":`...)
	b = strconv.AppendInt(b, int64(t.replies), 10)
	b = append(b, `,"like_count":`...)
	b = strconv.AppendInt(b, int64(t.favorites), 10)
	b = append(b, `,"quote_count":`...)
	b = strconv.AppendInt(b, int64(t.quotes), 10)
	b = append(b, `,"bookmark_count":0,"impression_count":`...)
	b = strconv.AppendInt(b, int64(t.favorites*37+t.retweets*90+11), 10)
	b = append(b, '}')
	b = appendV2Entities(b, ents, shift, maxEnd, rtUser)
	b = appendKBool(b, "possibly_sensitive", false)
	b = appendKStr(b, "reply_settings", "everyone", false)
	if t.rt != nil && mode != v2Included && mode != v2FlatRef {
		b = append(b, `,"referenced_tweets":[{"type":"retweeted",`...)
		if mode == v2Flat {
			// twarc2 merges the referenced tweet into the reference.
			inner := appendV2Tweet(nil, t.rt, v2FlatRef, retrieved)
			b = append(b, inner[1:len(inner)-1]...)
		} else {
			b = append(b, `"id":"`...)
			b = strconv.AppendUint(b, t.rt.id, 10)
			b = append(b, '"')
		}
		b = append(b, "}]"...)
	}
	if t.replyTo != nil {
		b = append(b, `,"referenced_tweets":[{"type":"replied_to","id":"`...)
		b = strconv.AppendUint(b, t.replyTo.id, 10)
		b = append(b, `"}]`...)
	}
	if t.geo == geoPoint || t.geo == geoPlace {
		b = append(b, `,"geo":{`...)
		if t.geo == geoPoint {
			b = append(b, `"coordinates":{"type":"Point","coordinates":[`...)
			b = appendFloat(b, t.lon)
			b = append(b, ',')
			b = appendFloat(b, t.lat)
			b = append(b, `]},`...)
		}
		b = append(b, `"place_id":`...)
		b = appendString(b, t.place.id, false)
		if mode == v2Flat || mode == v2FlatRef {
			b = append(b, ',')
			b = appendV2PlaceMembers(b, t.place)
		}
		b = append(b, '}')
	}
	if mode == v2Flat || mode == v2FlatRef {
		b = appendKey(b, "author")
		b = appendV2User(b, t.user)
	}
	if mode == v2Flat {
		b = appendTwarc(b, "https://api.twitter.com/2/tweets/search/recent", retrieved)
	}
	return append(b, '}')
}

// appendTwarc appends twarc's "__twarc" member.
func appendTwarc(b []byte, url string, retrieved time.Time) []byte {
	b = append(b, `,"__twarc":{"url":`...)
	b = appendString(b, url+"?expansions=author_id%2Creferenced_tweets.id%2Creferenced_tweets.id.author_id%2Cgeo.place_id&max_results=100", false)
	b = appendKStr(b, "version", twarcVersion, false)
	b = append(b, `,"retrieved_at":"`...)
	b = retrieved.UTC().AppendFormat(b, "2006-01-02T15:04:05+00:00")
	return append(b, `"}`...)
}

// appendV2Entities appends `,"entities":{...}` (nothing when there are no
// entities), as appendV1Entities does for v1.1.
func appendV2Entities(b []byte, ents []entity, shift, maxEnd int, rtUser *user) []byte {
	var nTag, nURL, nMention int
	for i := range ents {
		if ents[i].end+shift > maxEnd {
			continue
		}
		switch ents[i].kind {
		case pieceTag:
			nTag++
		case pieceURL:
			nURL++
		case pieceMention:
			nMention++
		}
	}
	if rtUser != nil {
		nMention++
	}
	if nTag+nURL+nMention == 0 {
		return b
	}
	b = append(b, `,"entities":{`...)
	sep := false
	list := func(name string) {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":[`...)
	}
	span := func(s, e int) {
		b = append(b, `{"start":`...)
		b = strconv.AppendInt(b, int64(s), 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, int64(e), 10)
	}
	if nTag > 0 {
		list("hashtags")
		n := 0
		for i := range ents {
			e := &ents[i]
			if e.kind != pieceTag || e.end+shift > maxEnd {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			span(e.start+shift, e.end+shift)
			b = appendKStr(b, "tag", e.text, false)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if nMention > 0 {
		list("mentions")
		n := 0
		mention := func(u *user, s, e int) {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			span(s, e)
			b = appendKStr(b, "username", u.screen, false)
			b = appendKUintStr(b, "id", u.id)
			b = append(b, '}')
		}
		if rtUser != nil {
			mention(rtUser, 3, 4+runeLen(rtUser.screen))
		}
		for i := range ents {
			e := &ents[i]
			if e.kind != pieceMention || e.end+shift > maxEnd {
				continue
			}
			mention(e.user, e.start+shift, e.end+shift)
		}
		b = append(b, ']')
	}
	if nURL > 0 {
		list("urls")
		n := 0
		for i := range ents {
			e := &ents[i]
			if e.kind != pieceURL || e.end+shift > maxEnd {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			span(e.start+shift, e.end+shift)
			b = appendKStr(b, "url", e.text, false)
			b = appendKStr(b, "expanded_url", e.expanded, false)
			b = appendKStr(b, "display_url", e.display, false)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendV2User appends an API v2 user object.
func appendV2User(b []byte, u *user) []byte {
	b = append(b, `{"id":"`...)
	b = strconv.AppendUint(b, u.id, 10)
	b = append(b, '"')
	b = appendKStr(b, "name", u.name, false)
	b = appendKStr(b, "username", u.screen, false)
	b = append(b, `,"created_at":"`...)
	b = appendISODate(b, timeOfMS(u.createdMS))
	b = append(b, '"')
	b = appendKStr(b, "description", u.desc, false)
	if u.location != "" {
		b = appendKStr(b, "location", u.location, false)
	}
	b = appendKBool(b, "protected", u.protected)
	b = appendKBool(b, "verified", u.verified)
	b = appendKStr(b, "profile_image_url", "https://pbs.twimg.com/profile_images/"+u.imageKey+"_normal.jpg", false)
	b = append(b, `,"public_metrics":{"followers_count":`...)
	b = strconv.AppendInt(b, int64(u.followers), 10)
	b = append(b, `,"following_count":`...)
	b = strconv.AppendInt(b, int64(u.friends), 10)
	b = append(b, `,"tweet_count":`...)
	b = strconv.AppendInt(b, int64(u.statuses), 10)
	b = append(b, `,"listed_count":`...)
	b = strconv.AppendInt(b, int64(u.listed), 10)
	b = append(b, `,"like_count":`...)
	b = strconv.AppendInt(b, int64(u.favourites), 10)
	b = append(b, '}')
	b = appendKStr(b, "url", u.link, false)
	return append(b, '}')
}

// appendV2PlaceMembers appends the members of an API v2 place object,
// without braces.
func appendV2PlaceMembers(b []byte, p *place) []byte {
	b = append(b, `"full_name":`...)
	b = appendString(b, p.fullName, false)
	b = appendKStr(b, "id", p.id, false)
	b = append(b, `,"contained_within":[]`...)
	b = appendKStr(b, "country", p.country, false)
	b = appendKStr(b, "country_code", p.countryCode, false)
	b = append(b, `,"geo":{"type":"Feature","bbox":[`...)
	for i, f := range [4]float64{p.w, p.s, p.e, p.n} {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, f)
	}
	b = append(b, `],"properties":{}}`...)
	b = appendKStr(b, "name", p.name, false)
	return appendKStr(b, "place_type", p.placeType, false)
}

// appendV2PageLine appends one twarc2 output line: a search response page
// {"data":[...],"includes":{...},"meta":{...},"__twarc":{...}} holding
// ts (newest first, as the search API returns them).
func appendV2PageLine(b []byte, ts []*tweet, nextToken string, retrieved time.Time) []byte {
	b = append(b, `{"data":[`...)
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendV2Tweet(b, t, v2Page, retrieved)
	}
	b = append(b, `],"includes":{"users":[`...)
	// Users: authors, then retweeted authors, each once, in order of first
	// reference (the expansions author_id and referenced_tweets.id.author_id).
	seen := map[uint64]bool{}
	n := 0
	addUser := func(u *user) {
		if seen[u.id] {
			return
		}
		seen[u.id] = true
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendV2User(b, u)
	}
	for _, t := range ts {
		addUser(t.user)
	}
	for _, t := range ts {
		if t.rt != nil {
			addUser(t.rt.user)
		}
	}
	b = append(b, ']')
	var places []*place
	for _, t := range ts {
		if (t.geo == geoPoint || t.geo == geoPlace) && !containsPlace(places, t.place) {
			places = append(places, t.place)
		}
	}
	if len(places) > 0 {
		b = append(b, `,"places":[`...)
		for i, p := range places {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			b = appendV2PlaceMembers(b, p)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	rts := 0
	for _, t := range ts {
		if t.rt == nil {
			continue
		}
		if rts == 0 {
			b = append(b, `,"tweets":[`...)
		} else {
			b = append(b, ',')
		}
		rts++
		b = appendV2Tweet(b, t.rt, v2Included, retrieved)
	}
	if rts > 0 {
		b = append(b, ']')
	}
	b = append(b, `},"meta":{"newest_id":"`...)
	b = strconv.AppendUint(b, ts[0].id, 10)
	b = append(b, `","oldest_id":"`...)
	b = strconv.AppendUint(b, ts[len(ts)-1].id, 10)
	b = append(b, `","result_count":`...)
	b = strconv.AppendInt(b, int64(len(ts)), 10)
	if nextToken != "" {
		b = appendKStr(b, "next_token", nextToken, false)
	}
	b = append(b, '}')
	b = appendTwarc(b, "https://api.twitter.com/2/tweets/search/recent", retrieved)
	return append(b, '}')
}

func containsPlace(ps []*place, p *place) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
