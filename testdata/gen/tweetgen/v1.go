package tweetgen

import (
	"strconv"
)

// v1Style says how a v1.1 tweet is written.
type v1Style struct {
	// ascii writes strings as the streaming API did: non-ASCII as \uXXXX,
	// "/" as "\/".
	ascii bool
	// fullUser writes the streaming API's full user object (about 1.2 KB),
	// else a compact one.
	fullUser bool
	// stream adds the streaming API's members: timestamp_ms, filter_level,
	// quote_count, reply_count.
	stream bool
	// search writes tweet_mode=extended: full_text instead of text and
	// extended_tweet, and the search API's metadata.
	search bool
	// drop leaves out one member ("created_at" or "id_str"): a tweet the
	// reader must dead-letter.
	drop string
}

// selfLink returns the link a truncated tweet ends with.
func selfLink(t *tweet) entity {
	id := strconv.FormatUint(t.id, 10)
	disp := "twitter.com/i/web/status/" + id
	return entity{kind: pieceURL, text: "https://t.co/" + strconv.FormatUint(t.id%0xFFFFFFFFFF, 36), expanded: "https://twitter.com/i/web/status/" + id, display: disp[:25] + "…"}
}

// rtText returns the (possibly truncated) own text of a retweet:
// "RT @name: " + the retweeted text, cut to 140 runes with "…".
func rtText(t *tweet) (text string, cut int) {
	full := "RT @" + t.rt.user.screen + ": " + t.rt.text
	if runeLen(full) <= 140 {
		return full, runeLen(full)
	}
	i := runeOffset(full, 139)
	return full[:i] + "…", 139
}

// appendV1Tweet appends t as a v1.1 tweet object.
func appendV1Tweet(b []byte, t *tweet, st v1Style) []byte {
	return appendV1(b, t, st, true)
}

// appendV1 appends t; top is false for an embedded retweeted or quoted
// status, which has no timestamp_ms.
func appendV1(b []byte, t *tweet, st v1Style, top bool) []byte {
	a := st.ascii
	b = append(b, '{')
	first := true
	if st.drop != "created_at" {
		b = append(b, `"created_at":"`...)
		b = appendRubyDate(b, t.created())
		b = append(b, '"')
		first = false
	}
	if !first {
		b = append(b, ',')
	}
	b = append(b, `"id":`...)
	b = appendMangledID(b, t.id)
	if st.drop != "id_str" {
		b = appendKUintStr(b, "id_str", t.id)
	}

	// Text.
	var (
		text      string
		truncated bool
		ents      []entity
		shift     int // offset of the own entities in text (retweets)
		maxEnd    = 1 << 30
		extra     *entity
		rangeFrom int
	)
	switch {
	case t.rt != nil:
		var cut int
		text, cut = rtText(t)
		prefix := runeLen("RT @" + t.rt.user.screen + ": ")
		ents, shift, maxEnd = t.rt.ents, prefix, cut
	case t.long() && !st.search:
		cut := t.visibleCut(113)
		text = t.text[:runeOffset(t.text, cut)] + "… "
		link := selfLink(t)
		link.start = runeLen(text)
		text += link.text
		link.end = link.start + runeLen(link.text)
		truncated, ents, maxEnd, extra = true, t.ents, cut, &link
	default:
		text, ents = t.text, t.ents
	}
	if t.replyTo != nil {
		rangeFrom = runeLen(t.replyTo.user.screen) + 2
	}
	if st.search {
		b = appendKStr(b, "full_text", text, a)
		b = appendKey(b, "truncated")
		b = append(b, "false"...)
		b = appendRange(b, rangeFrom, runeLen(text))
	} else {
		b = appendKStr(b, "text", text, a)
		if t.replyTo != nil {
			b = appendRange(b, rangeFrom, runeLen(text))
		}
	}
	b = appendKStr(b, "source", sources[t.source], a)
	if !st.search {
		b = appendKBool(b, "truncated", truncated)
	}
	if r := t.replyTo; r != nil {
		b = appendKey(b, "in_reply_to_status_id")
		b = appendMangledID(b, r.id)
		b = appendKUintStr(b, "in_reply_to_status_id_str", r.id)
		b = appendKey(b, "in_reply_to_user_id")
		b = appendMangledID(b, r.user.id)
		b = appendKUintStr(b, "in_reply_to_user_id_str", r.user.id)
		b = appendKStr(b, "in_reply_to_screen_name", r.user.screen, a)
	} else {
		for _, k := range [...]string{"in_reply_to_status_id", "in_reply_to_status_id_str", "in_reply_to_user_id", "in_reply_to_user_id_str", "in_reply_to_screen_name"} {
			b = appendKNull(b, k)
		}
	}
	b = appendKey(b, "user")
	b = appendV1User(b, t.user, st)
	b = appendV1Geo(b, t, a)
	b = appendKNull(b, "contributors")
	if t.rt != nil {
		b = appendKey(b, "retweeted_status")
		b = appendV1(b, t.rt, st, false)
	}
	if q := t.quote; q != nil {
		b = appendKey(b, "quoted_status_id")
		b = appendMangledID(b, q.id)
		b = appendKUintStr(b, "quoted_status_id_str", q.id)
		b = appendKey(b, "quoted_status")
		b = appendV1(b, q, st, false)
		b = append(b, `,"quoted_status_permalink":{"url":`...)
		link := "https://t.co/" + strconv.FormatUint(q.id%0xFFFFFFFFF, 36)
		b = appendString(b, link, a)
		b = appendKStr(b, "expanded", "https://twitter.com/"+q.user.screen+"/status/"+strconv.FormatUint(q.id, 10), a)
		b = appendKStr(b, "display", "twitter.com/"+q.user.screen+"/s…", a)
		b = append(b, '}')
	}
	b = appendKBool(b, "is_quote_status", t.quote != nil)
	if truncated {
		b = append(b, `,"extended_tweet":{"full_text":`...)
		b = appendString(b, t.text, a)
		b = appendRange(b, rangeFrom, runeLen(t.text))
		b = appendKey(b, "entities")
		b = appendV1Entities(b, t.ents, 0, 1<<30, nil, nil, a)
		b = append(b, '}')
	}
	if st.stream {
		b = appendKInt(b, "quote_count", int64(t.quotes))
		b = appendKInt(b, "reply_count", int64(t.replies))
	}
	b = appendKInt(b, "retweet_count", int64(t.retweets))
	b = appendKInt(b, "favorite_count", int64(t.favorites))
	b = appendKey(b, "entities")
	var rtUser *user
	if t.rt != nil {
		rtUser = t.rt.user
	}
	b = appendV1Entities(b, ents, shift, maxEnd, extra, rtUser, a)
	if hasURL(t.ents) {
		b = appendKBool(b, "possibly_sensitive", false)
	}
	b = appendKBool(b, "favorited", false)
	b = appendKBool(b, "retweeted", false)
	if st.stream {
		b = appendKStr(b, "filter_level", "low", a)
	}
	b = appendKStr(b, "lang", t.lang, a)
	if st.search {
		b = append(b, `,"metadata":{"iso_language_code":`...)
		b = appendString(b, t.lang, a)
		b = append(b, `,"result_type":"recent"}`...)
	}
	if st.stream && top {
		b = append(b, `,"timestamp_ms":"`...)
		b = strconv.AppendInt(b, t.ms, 10)
		b = append(b, '"')
	}
	return append(b, '}')
}

func hasURL(ents []entity) bool {
	for i := range ents {
		if ents[i].kind == pieceURL {
			return true
		}
	}
	return false
}

// appendRange appends `,"display_text_range":[from,to]`.
func appendRange(b []byte, from, to int) []byte {
	b = append(b, `,"display_text_range":[`...)
	b = strconv.AppendInt(b, int64(from), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(to), 10)
	return append(b, ']')
}

// appendIndices appends `"indices":[s,e]`.
func appendIndices(b []byte, s, e int) []byte {
	b = append(b, `"indices":[`...)
	b = strconv.AppendInt(b, int64(s), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(e), 10)
	return append(b, ']')
}

// appendV1Entities appends the entities object of ents shifted by shift
// runes, keeping those that end at or before maxEnd, plus extra (a link)
// when set. A retweet mentions the retweeted author rtUser first ("RT
// @name: "); its ents are then the retweeted tweet's.
func appendV1Entities(b []byte, ents []entity, shift, maxEnd int, extra *entity, rtUser *user, a bool) []byte {
	keep := func(e *entity) bool { return e.end+shift <= maxEnd }
	b = append(b, `{"hashtags":[`...)
	n := 0
	for i := range ents {
		e := &ents[i]
		if e.kind != pieceTag || !keep(e) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"text":`...)
		b = appendString(b, e.text, a)
		b = append(b, ',')
		b = appendIndices(b, e.start+shift, e.end+shift)
		b = append(b, '}')
	}
	b = append(b, `],"urls":[`...)
	n = 0
	for i := range ents {
		e := &ents[i]
		if e.kind != pieceURL || !keep(e) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendV1URL(b, e, shift, a)
	}
	if extra != nil {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendV1URL(b, extra, 0, a)
	}
	b = append(b, `],"user_mentions":[`...)
	n = 0
	if rtUser != nil {
		b = appendV1Mention(b, rtUser, 3, 4+runeLen(rtUser.screen), a)
		n++
	}
	for i := range ents {
		e := &ents[i]
		if e.kind != pieceMention || !keep(e) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendV1Mention(b, e.user, e.start+shift, e.end+shift, a)
	}
	return append(b, `],"symbols":[]}`...)
}

func appendV1Mention(b []byte, u *user, start, end int, a bool) []byte {
	b = append(b, `{"screen_name":`...)
	b = appendString(b, u.screen, a)
	b = appendKStr(b, "name", u.name, a)
	b = appendKey(b, "id")
	b = appendMangledID(b, u.id)
	b = appendKUintStr(b, "id_str", u.id)
	b = append(b, ',')
	b = appendIndices(b, start, end)
	return append(b, '}')
}

func appendV1URL(b []byte, e *entity, shift int, a bool) []byte {
	b = append(b, `{"url":`...)
	b = appendString(b, e.text, a)
	b = appendKStr(b, "expanded_url", e.expanded, a)
	b = appendKStr(b, "display_url", e.display, a)
	b = append(b, ',')
	b = appendIndices(b, e.start+shift, e.end+shift)
	return append(b, '}')
}

// appendV1User appends a v1.1 user object.
func appendV1User(b []byte, u *user, st v1Style) []byte {
	a := st.ascii
	b = append(b, `{"id":`...)
	b = appendMangledID(b, u.id)
	b = appendKUintStr(b, "id_str", u.id)
	b = appendKStr(b, "name", u.name, a)
	b = appendKStr(b, "screen_name", u.screen, a)
	if u.location == "" {
		b = appendKNull(b, "location")
	} else {
		b = appendKStr(b, "location", u.location, a)
	}
	if u.link == "" {
		b = appendKNull(b, "url")
	} else {
		b = appendKStr(b, "url", u.link, a)
	}
	if u.desc == "" {
		b = appendKNull(b, "description")
	} else {
		b = appendKStr(b, "description", u.desc, a)
	}
	if st.fullUser {
		b = appendKStr(b, "translator_type", "none", a)
	}
	b = appendKBool(b, "protected", u.protected)
	b = appendKBool(b, "verified", u.verified)
	b = appendKInt(b, "followers_count", int64(u.followers))
	b = appendKInt(b, "friends_count", int64(u.friends))
	b = appendKInt(b, "listed_count", int64(u.listed))
	b = appendKInt(b, "favourites_count", int64(u.favourites))
	b = appendKInt(b, "statuses_count", int64(u.statuses))
	b = append(b, `,"created_at":"`...)
	b = appendRubyDate(b, timeOfMS(u.createdMS))
	b = append(b, '"')
	if st.fullUser {
		b = appendKNull(b, "utc_offset")
		b = appendKNull(b, "time_zone")
	}
	b = appendKBool(b, "geo_enabled", u.geoEnabled)
	b = appendKNull(b, "lang")
	img := "http://pbs.twimg.com/profile_images/" + u.imageKey + "_normal.jpg"
	if st.fullUser {
		colors := profileColors[u.color]
		b = appendKBool(b, "contributors_enabled", false)
		b = appendKBool(b, "is_translator", false)
		b = appendKStr(b, "profile_background_color", colors[1], a)
		b = appendKStr(b, "profile_background_image_url", "http://abs.twimg.com/images/themes/theme1/bg.png", a)
		b = appendKStr(b, "profile_background_image_url_https", "https://abs.twimg.com/images/themes/theme1/bg.png", a)
		b = appendKBool(b, "profile_background_tile", false)
		b = appendKStr(b, "profile_link_color", colors[0], a)
		b = appendKStr(b, "profile_sidebar_border_color", "C0DEED", a)
		b = appendKStr(b, "profile_sidebar_fill_color", "DDEEF6", a)
		b = appendKStr(b, "profile_text_color", "333333", a)
		b = appendKBool(b, "profile_use_background_image", true)
		b = appendKStr(b, "profile_image_url", img, a)
	}
	b = appendKStr(b, "profile_image_url_https", "https"+img[4:], a)
	if st.fullUser {
		if u.banner {
			b = append(b, `,"profile_banner_url":`...)
			b = append(b, '"')
			if a {
				b = append(b, `https:\/\/pbs.twimg.com\/profile_banners\/`...)
			} else {
				b = append(b, `https://pbs.twimg.com/profile_banners/`...)
			}
			b = strconv.AppendUint(b, u.id, 10)
			b = append(b, '/')
			b = strconv.AppendInt(b, u.createdMS/1000+86400*30, 10)
			b = append(b, '"')
		}
		b = appendKBool(b, "default_profile", u.defaultProfile)
		b = appendKBool(b, "default_profile_image", false)
		b = appendKNull(b, "following")
		b = appendKNull(b, "follow_request_sent")
		b = appendKNull(b, "notifications")
		b = append(b, `,"withheld_in_countries":[]`...)
	}
	return append(b, '}')
}

// appendV1Geo appends the geo, coordinates and place members.
func appendV1Geo(b []byte, t *tweet, a bool) []byte {
	lat, lon := t.lat, t.lon
	switch t.geo {
	case geoPoint, geoOnlyGeo, geoImpossible:
		b = append(b, `,"geo":{"type":"Point","coordinates":[`...)
		b = appendFloat(b, lat)
		b = append(b, ',')
		b = appendFloat(b, lon)
		b = append(b, `]}`...)
	default:
		b = appendKNull(b, "geo")
	}
	switch t.geo {
	case geoPoint, geoImpossible:
		b = append(b, `,"coordinates":{"type":"Point","coordinates":[`...)
		b = appendFloat(b, lon)
		b = append(b, ',')
		b = appendFloat(b, lat)
		b = append(b, `]}`...)
	default:
		b = appendKNull(b, "coordinates")
	}
	if t.place == nil || t.geo == geoOnlyGeo {
		return appendKNull(b, "place")
	}
	return appendV1Place(appendKey(b, "place"), t.place, a)
}

// appendV1Place appends a v1.1 place object.
func appendV1Place(b []byte, p *place, a bool) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, p.id, a)
	b = appendKStr(b, "url", "https://api.twitter.com/1.1/geo/id/"+p.id+".json", a)
	b = appendKStr(b, "place_type", p.placeType, a)
	b = appendKStr(b, "name", p.name, a)
	b = appendKStr(b, "full_name", p.fullName, a)
	b = appendKStr(b, "country_code", p.countryCode, a)
	b = appendKStr(b, "country", p.country, a)
	b = append(b, `,"bounding_box":{"type":"Polygon","coordinates":[[`...)
	corners := [4][2]float64{{p.w, p.s}, {p.w, p.n}, {p.e, p.n}, {p.e, p.s}}
	for i, c := range corners {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendFloat(b, c[0])
		b = append(b, ',')
		b = appendFloat(b, c[1])
		b = append(b, ']')
	}
	return append(b, `]]},"attributes":{}}`...)
}
