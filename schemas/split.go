package schemas

import "github.com/valyala/fastjson"

// decodeV2Page decodes a v2 page {"data": [...], "includes": {...},
// "meta": {...}} (a search response, or a line of twarc2 output): one tweet
// per data element. Tweets in includes.tweets are context (the full text of
// retweets), never results. Each tweet is stored as a single-tweet document
// built from the page (see buildDocument).
func (d *Decoder) decodeV2Page(out *Decoded, page *fastjson.Value, f *fields, start, end int) {
	data := d.rec.Data
	var dataSpan, incSpan span
	var haveData, haveInc bool
	ok := eachMember(data, start, func(key []byte, s span) bool {
		switch {
		case keyEqual(key, "data"):
			dataSpan, haveData = s, true
		case keyEqual(key, "includes"):
			incSpan, haveInc = s, true
		}
		return true
	})
	elems := f.data.GetArray()
	if ok && haveData {
		d.dataSpans, ok = elementSpans(data, dataSpan.start, d.dataSpans[:0])
	}
	if ok && f.includes != nil {
		ok = haveInc && d.inc.load(f.includes, data, incSpan.start)
	} else {
		d.inc.reset()
	}
	if !ok || !haveData || len(d.dataSpans) != len(elems) {
		d.reject(out, start, data[start:end], "broken JSON: cannot locate the elements of the v2 page")
		return
	}
	for i, e := range elems {
		s := d.dataSpans[i]
		raw := data[s.start:s.end]
		if e.Type() != fastjson.TypeObject {
			d.reject(out, s.start, raw, "not a tweet: JSON "+e.Type().String())
			continue
		}
		var tf fields
		tf.collect(e)
		if kind, ok := tf.notATweet(); ok {
			out.skip(kind) // a page of users, lists, ...
			continue
		}
		t, reason := normalizeV2(&tf, &d.inc)
		if reason != "" {
			d.reject(out, s.start, raw, reason)
			continue
		}
		t.JSON = d.buildDocument(&tf, raw)
		t.Origin = d.origin(s.start)
		out.Tweets = append(out.Tweets, t)
	}
}

// buildDocument returns the stored JSON of the page tweet raw, whose members
// are f:
//
//	{"data":<raw>,"includes":{"users":[...],"places":[...],"tweets":[...]}}
//
// The includes are the page's own bytes of what the tweet references: its
// author (author_id), its place (geo.place_id), the tweets it references
// (referenced_tweets) and the authors of those, each list in page order.
// Empty lists are left out, and so is an empty includes. The same page
// always gives the same bytes, so the row key of a re-read page is stable.
func (d *Decoder) buildDocument(f *fields, raw []byte) []byte {
	inc := &d.inc
	for _, list := range [...][]incItem{inc.users, inc.places, inc.tweets} {
		for i := range list {
			list[i].picked = false
		}
	}
	pick := func(list []incItem, id []byte) int {
		i := inc.find(list, id)
		if i >= 0 {
			list[i].picked = true
		}
		return i
	}
	pick(inc.users, f.authorID.GetStringBytes())
	pick(inc.places, f.geo.GetStringBytes("place_id"))
	for _, r := range f.referenced.GetArray() {
		if i := pick(inc.tweets, r.GetStringBytes("id")); i >= 0 {
			pick(inc.users, inc.tweets[i].v.GetStringBytes("author_id"))
		}
	}

	const (
		head    = `{"data":`
		incHead = `,"includes":{`
	)
	names := [...]string{`"users":[`, `"places":[`, `"tweets":[`}
	lists := [...][]incItem{inc.users, inc.places, inc.tweets}
	size := len(head) + len(raw) + 1
	anyPicked := false
	for li, list := range lists {
		n := 0
		for _, it := range list {
			if it.picked {
				size += it.s.end - it.s.start + 1 // element and its comma
				n++
			}
		}
		if n > 0 {
			size += len(names[li]) + 1 // name and the list's comma
			anyPicked = true
		}
	}
	if anyPicked {
		size += len(incHead) + 1
	}

	doc := make([]byte, 0, size)
	doc = append(doc, head...)
	doc = append(doc, raw...)
	if anyPicked {
		doc = append(doc, incHead...)
		firstList := true
		for li, list := range lists {
			first := true
			for _, it := range list {
				if !it.picked {
					continue
				}
				if first {
					if !firstList {
						doc = append(doc, ',')
					}
					doc = append(doc, names[li]...)
					first, firstList = false, false
				} else {
					doc = append(doc, ',')
				}
				doc = append(doc, d.rec.Data[it.s.start:it.s.end]...)
			}
			if !first {
				doc = append(doc, ']')
			}
		}
		doc = append(doc, '}')
	}
	return append(doc, '}')
}
