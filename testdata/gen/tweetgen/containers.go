package tweetgen

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dsnet/compress/bzip2"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression and archives, written deterministically: no timestamps or
// names in gzip headers, fixed modification times in tar and zip, and
// the pinned klauspost/dsnet encoders, so the bytes depend on the input
// only.

// gzipBytes returns data as one gzip member.
func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// truncatedGzipMember returns a gzip member holding complete followed by
// partial, cut off right after partial: the member has no final block and
// no trailer, as a download that stopped there. Every byte of complete
// and partial decodes (they end at a sync flush) and the decoder then
// fails with an unexpected EOF, whatever the decoder's buffering.
func truncatedGzipMember(complete, partial []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	zw.Write(complete)
	zw.Flush()
	zw.Write(partial)
	zw.Flush()
	return bytes.Clone(buf.Bytes())
}

// bzip2Bytes returns data as a bzip2 stream.
func bzip2Bytes(data []byte) []byte {
	var buf bytes.Buffer
	zw, err := bzip2.NewWriter(&buf, &bzip2.WriterConfig{Level: 9})
	if err != nil {
		panic(err)
	}
	zw.Write(data)
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// zstdBytes returns data as one zstd frame.
func zstdBytes(data []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

// member is a file inside a tar or zip archive; a name ending in "/" is a
// directory.
type member struct {
	name string
	data []byte
	mod  time.Time
}

// tarBytes returns a tar archive (USTAR, owner 0, mode 0644/0755).
func tarBytes(ms []member) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range ms {
		h := &tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.data)), ModTime: m.mod, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
		if m.name[len(m.name)-1] == '/' {
			h.Mode, h.Size, h.Typeflag = 0o755, 0, tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(fmt.Errorf("tar %s: %w", m.name, err))
		}
		tw.Write(m.data)
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// zipBytes returns a zip archive whose files are deflated.
func zipBytes(ms []member) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.DefaultCompression)
	})
	for _, m := range ms {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: m.mod}
		h.SetMode(0o644)
		if m.name[len(m.name)-1] == '/' {
			h.Method = zip.Store
			h.SetMode(os.ModeDir | 0o755)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			panic(fmt.Errorf("zip %s: %w", m.name, err))
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
