#!/bin/sh
# The Flex Template launcher runs this with the template's parameters as
# flags; tweetindex wants its subcommand first.
exec "$(dirname "$0")/tweetindex" index "$@"
