package archiveio

import (
	"bytes"
	"path"
	"strings"
)

// format is the container or compression format of a stream.
type format int

const (
	formatPlain format = iota
	formatGzip
	formatBzip2
	formatZstd
	formatTar
	formatZip
)

func (f format) String() string {
	switch f {
	case formatGzip:
		return "gzip"
	case formatBzip2:
		return "bzip2"
	case formatZstd:
		return "zstd"
	case formatTar:
		return "tar"
	case formatZip:
		return "zip"
	}
	return "plain"
}

// sniffLen is how many leading bytes detect needs: a tar header's magic
// ends at offset 263.
const sniffLen = 512

var (
	magicGzip    = []byte{0x1f, 0x8b}
	magicBzip2   = []byte("BZh")
	magicZstd    = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicZip     = []byte("PK\x03\x04")
	magicZipNone = []byte("PK\x05\x06") // an empty archive: end of central directory only
	magicTar     = []byte("ustar")      // at offset 257, "ustar\x0000" (POSIX) or "ustar  \x00" (GNU)
)

// detect returns the format of a stream from its first bytes. When the
// bytes match no magic number, the name's extension decides between a
// compressed format (whose decoder then reports the damaged header) and
// plain text.
func detect(head []byte, name string) format {
	switch {
	case bytes.HasPrefix(head, magicGzip):
		return formatGzip
	case bytes.HasPrefix(head, magicBzip2) && len(head) > 3 && head[3] >= '1' && head[3] <= '9':
		return formatBzip2
	case bytes.HasPrefix(head, magicZstd):
		return formatZstd
	case bytes.HasPrefix(head, magicZip), bytes.HasPrefix(head, magicZipNone):
		return formatZip
	case len(head) >= 262 && bytes.Equal(head[257:262], magicTar):
		return formatTar
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".gz", ".tgz", ".gzip":
		return formatGzip
	case ".bz2", ".tbz2", ".bzip2":
		return formatBzip2
	case ".zst", ".tzst", ".zstd":
		return formatZstd
	}
	return formatPlain
}
