package archiveio

import (
	"bufio"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/dsnet/compress/bzip2"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/tweetindex/tweetindex/schemas"
)

// Decoders are pooled: an archive of per-minute files opens one per member.
var (
	gzipPool  sync.Pool // *gzip.Reader
	bzip2Pool = sync.Pool{New: func() any { zr, _ := bzip2.NewReader(nil, nil); return zr }}
	zstdPool  sync.Pool // *zstd.Decoder
)

// decompress reads the stream in br, compressed in format f, and goes on
// with what it holds, which may be an archive or compressed again.
func (rd *reader) decompress(f format, src, name string, br *bufio.Reader, depth int) error {
	var (
		zr      io.Reader
		release func()
		err     error
	)
	switch f {
	case formatGzip:
		gr, _ := gzipPool.Get().(*gzip.Reader)
		if gr == nil {
			gr = new(gzip.Reader)
		}
		err = gr.Reset(br) // reads the first member's header
		zr, release = gr, func() { gzipPool.Put(gr) }
	case formatBzip2:
		bz := bzip2Pool.Get().(*bzip2.Reader)
		err = bz.Reset(br)
		zr, release = bz, func() { bz.Reset(nil); bzip2Pool.Put(bz) }
	case formatZstd:
		zd, _ := zstdPool.Get().(*zstd.Decoder)
		if zd == nil {
			// One goroutine: decoding runs in the caller, so a decoder
			// dropped by the pool leaks nothing.
			zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(false))
			if err != nil {
				return err
			}
		}
		err = zd.Reset(br)
		zr, release = zd, func() { zd.Reset(nil); zstdPool.Put(zd) }
	}
	defer release()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // a header and nothing after it
		}
		return rd.fault(schemas.Origin{Source: src, Line: 1}, nil, (&streamError{format: f.String(), err: err}).Error())
	}
	in := &faultReader{r: zr, format: f.String()}
	return rd.stream(src, innerName(name), in, nil, depth+1)
}

// innerName is the name of what a compressed file holds: "a.json" for
// "a.json.gz", "a.tar" for "a.tgz".
func innerName(name string) string {
	ext := path.Ext(name)
	switch strings.ToLower(ext) {
	case ".tgz", ".tbz2", ".tzst":
		return strings.TrimSuffix(name, ext) + ".tar"
	case ".gz", ".gzip", ".bz2", ".bzip2", ".zst", ".zstd":
		return strings.TrimSuffix(name, ext)
	}
	return name
}
