package storeio

import (
	"os"
	"strconv"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// bulkTuning: EXPERIMENT knobs, to be replaced by fixed values.
func bulkTuning(o *pebble.Options) {
	if v, _ := strconv.Atoi(os.Getenv("TI_L0")); v > 0 {
		o.L0CompactionThreshold = v
	}
	if v, _ := strconv.Atoi(os.Getenv("TI_MEM")); v > 0 {
		o.MemTableSize = uint64(v) << 20
	}
	if os.Getenv("TI_NOCOMP0") != "" {
		o.Levels[0].Compression = func() *sstable.CompressionProfile { return sstable.NoCompression }
		for i := 1; i < len(o.Levels); i++ {
			o.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.SnappyCompression }
		}
	}
	if v, _ := strconv.Atoi(os.Getenv("TI_VSEP")); v > 0 {
		o.FormatMajorVersion = pebble.FormatValueSeparation
		o.Experimental.ValueSeparationPolicy = func() pebble.ValueSeparationPolicy {
			return pebble.ValueSeparationPolicy{Enabled: true, MinimumSize: v, MaxBlobReferenceDepth: 10, RewriteMinimumAge: time.Hour, TargetGarbageRatio: 1}
		}
	}
	if os.Getenv("TI_NOAUTO") != "" {
		o.DisableAutomaticCompactions = true
	}
}
