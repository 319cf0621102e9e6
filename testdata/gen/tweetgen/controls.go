package tweetgen

import (
	"math/rand/v2"
	"strconv"
)

// Control message kinds of the v1.1 streaming API. A reader counts them as
// skipped, like blank keep-alive lines.
const (
	ctlDelete = iota
	ctlLimit
	ctlScrubGeo
	ctlStatusWithheld
	ctlUserWithheld
	ctlWarning
	ctlDisconnect
	numControls
)

// controlNames name the control kinds (the message's only member).
var controlNames = [numControls]string{"delete", "limit", "scrub_geo", "status_withheld", "user_withheld", "warning", "disconnect"}

// appendControl appends a control message of kind k sent at ms.
func appendControl(b []byte, r *rand.Rand, k int, ms int64) []byte {
	id := snowflakeAt(r, ms-int64(r.IntN(30*86400))*1000)
	uid := uint64(10_000 + r.Int64N(1_500_000_000))
	ts := strconv.FormatInt(ms, 10)
	switch k {
	case ctlDelete:
		b = append(b, `{"delete":{"status":{"id":`...)
		b = appendMangledID(b, id)
		b = appendKUintStr(b, "id_str", id)
		b = appendKInt(b, "user_id", int64(uid))
		b = appendKUintStr(b, "user_id_str", uid)
		b = append(b, `},"timestamp_ms":"`...)
		b = append(b, ts...)
		b = append(b, `"}}`...)
	case ctlLimit:
		b = append(b, `{"limit":{"track":`...)
		b = strconv.AppendInt(b, int64(1+r.IntN(5000)), 10)
		b = append(b, `,"timestamp_ms":"`...)
		b = append(b, ts...)
		b = append(b, `"}}`...)
	case ctlScrubGeo:
		b = append(b, `{"scrub_geo":{"user_id":`...)
		b = strconv.AppendUint(b, uid, 10)
		b = appendKUintStr(b, "user_id_str", uid)
		b = appendKey(b, "up_to_status_id")
		b = appendMangledID(b, id)
		b = appendKUintStr(b, "up_to_status_id_str", id)
		b = append(b, `,"timestamp_ms":"`...)
		b = append(b, ts...)
		b = append(b, `"}}`...)
	case ctlStatusWithheld:
		b = append(b, `{"status_withheld":{"id":`...)
		b = appendMangledID(b, id)
		b = appendKInt(b, "user_id", int64(uid))
		b = append(b, `,"withheld_in_countries":["DE","FR"],"timestamp_ms":"`...)
		b = append(b, ts...)
		b = append(b, `"}}`...)
	case ctlUserWithheld:
		b = append(b, `{"user_withheld":{"id":`...)
		b = strconv.AppendUint(b, uid, 10)
		b = append(b, `,"withheld_in_countries":["TR"],"timestamp_ms":"`...)
		b = append(b, ts...)
		b = append(b, `"}}`...)
	case ctlWarning:
		b = append(b, `{"warning":{"code":"FALLING_BEHIND","message":"Your connection is falling behind and messages are being queued for delivery to you. Your queue is now over 60% full. You will be disconnected when the queue is full.","percent_full":60}}`...)
	case ctlDisconnect:
		b = append(b, `{"disconnect":{"code":7,"stream_name":"stream-grab-statuses1","reason":"admin logout"}}`...)
	}
	return b
}
