package transforms

import "time"

// Minute is the width of the event-time windows of deduplication and of the
// frequency table.
const Minute = time.Minute
