#!/bin/sh
# Backfill yesterday, UTC: index every tweet created from yesterday 00:00 UTC
# to today 00:00 UTC from the archive, then print the backfill status.
# Used by the cron, systemd and Kubernetes examples in this directory.
#
# Environment:
#   ARCHIVE_ROOT  root of the archive                          (required)
#   STORE         embedded store directory, or
#   CASSANDRA     Cassandra contact points (host[:port],...)   (one of the two)
#   KEYSPACE      Cassandra keyspace                           (default tweetindex)
#   TWEETINDEX    the command                                  (default: tweetindex on PATH)
#   DAY           YYYY-MM-DD to backfill instead of yesterday  (catching up a missed day)
#   EXTRA_FLAGS   more flags for `tweetindex backfill` (e.g. Beam runner flags)
#
# Exit status: that of the backfill (the status report is informational).
set -u

: "${ARCHIVE_ROOT:?set ARCHIVE_ROOT to the root of the tweet archive}"
TWEETINDEX=${TWEETINDEX:-tweetindex}

# GNU date; BusyBox date understands only the @seconds form.
day=${DAY:-$(date -u -d yesterday +%F 2>/dev/null || date -u -d "@$(($(date -u +%s) - 86400))" +%F)}
if [ "$(date -u -d "$day" +%F 2>/dev/null)" != "$day" ]; then
	echo "backfill-yesterday: DAY=$day is not a date (want YYYY-MM-DD)" >&2
	exit 2
fi
next=$(date -u -d "$day + 1 day" +%F 2>/dev/null) ||
	next=$(date -u -d "@$(($(date -u -d "$day" +%s) + 86400))" +%F)

if [ -n "${CASSANDRA:-}" ]; then
	set -- --cassandra "$CASSANDRA" --keyspace "${KEYSPACE:-tweetindex}"
elif [ -n "${STORE:-}" ]; then
	set -- --store "$STORE"
else
	echo "backfill-yesterday: set STORE (embedded store directory) or CASSANDRA (contact points)" >&2
	exit 2
fi

echo "backfill-yesterday: ${day}T00:00:00Z to ${next}T00:00:00Z from $ARCHIVE_ROOT" >&2
# shellcheck disable=SC2086 # EXTRA_FLAGS is a list of flags
"$TWEETINDEX" backfill --root "$ARCHIVE_ROOT" --from "${day}T00:00:00Z" --to "${next}T00:00:00Z" "$@" ${EXTRA_FLAGS:-}
rc=$?
"$TWEETINDEX" backfill status "$@"
exit $rc
