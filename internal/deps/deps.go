// Package deps pins the project's dependencies until code imports them.
package deps

import (
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	_ "github.com/apache/cassandra-gocql-driver/v2"
	_ "github.com/cockroachdb/pebble/v2"
	_ "github.com/dsnet/compress/bzip2"
	_ "github.com/klauspost/compress/gzip"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/mmcloughlin/geohash"
	_ "github.com/segmentio/kafka-go"
	_ "github.com/twmb/franz-go/pkg/kfake"
	_ "github.com/valyala/fastjson"
)
