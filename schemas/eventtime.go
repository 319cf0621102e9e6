package schemas

// EventTime returns the created_at of a single tweet document, in seconds
// since 1970: a v1.1 tweet (created_at of the top-level object, not of a
// retweeted or quoted tweet), a personal archive element {"tweet": {...}}
// or a v2 single-tweet document {"data": {...}}. It reads only as far as
// the created_at member and allocates nothing, for Kafka watermarks; ok is
// false when the document has no usable created_at (the decoder then says
// why) or when the time is outside ValidDay.
func EventTime(data []byte) (sec int64, ok bool) {
	start, end := trimSpace(data)
	return eventTime(data[:end], start, 0)
}

func eventTime(data []byte, i, depth int) (sec int64, ok bool) {
	eachMember(data, i, func(key []byte, v span) bool {
		switch {
		case string(key) == "created_at":
			if data[v.start] == '"' {
				sec, ok = parseCreatedAt(data[v.start+1 : v.end-1])
			}
			return false
		case depth == 0 && (string(key) == "data" || string(key) == "tweet") && data[v.start] == '{':
			sec, ok = eventTime(data, v.start, depth+1)
			return !ok
		}
		return true
	})
	return sec, ok && ValidDay(sec)
}
