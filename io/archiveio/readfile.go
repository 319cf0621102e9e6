package archiveio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/tweetindex/tweetindex/schemas"
)

// ReadFile reads the file at path and calls fn with batches of its records,
// in file order. A batch holds at most opts.BatchRecords records and is
// complete once it holds opts.BatchBytes bytes of record data. The batch
// slice and every record's Data belong to fn: ReadFile never touches them
// again, so fn may keep them.
//
// Records are tagged with their origin: Source is path (as given), or
// "path!member" for a member of a tar or zip archive ("a.tar!b.zip!c.json"
// when nested), and Line is the 1-based line within that file or member.
// Damaged input is reported in band, as records with a Fault (see the
// package documentation); ReadFile returns an error only when the file
// cannot be opened or read at all, when fn fails (its error is returned as
// is), or when ctx is done (checked before each batch).
func ReadFile(ctx context.Context, path string, opts Options, fn func([]schemas.Record) error) (Stats, error) {
	var st Stats
	// Check before opening: opening a named pipe waits for a writer.
	if fi, err := os.Stat(path); err != nil {
		return st, fmt.Errorf("archiveio: %w", err)
	} else if err := checkRegular(path, fi); err != nil {
		return st, err
	}
	f, err := os.Open(path)
	if err != nil {
		return st, fmt.Errorf("archiveio: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return st, fmt.Errorf("archiveio: %w", err)
	}
	if err := checkRegular(path, fi); err != nil {
		return st, err
	}
	cf := &countingFile{f: f, n: &st.Bytes}
	rd := reader{b: newBatcher(ctx, opts.withDefaults(), &st, fn)}
	in := &faultReader{r: cf, format: "file"}
	err = rd.stream(path, path, in, &section{cf, fi.Size()}, 0)
	var se *streamError
	if errors.As(in.err, &se) && se.format == "file" {
		noteUnreadable(path, se) // reported in band, and named after the run
	}
	if err != nil {
		return st, err
	}
	if err := rd.b.close(); err != nil {
		return st, err
	}
	return st, nil
}

// countingFile counts the bytes read from a file.
type countingFile struct {
	f *os.File
	n *int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	*c.n += int64(n)
	localBytes.Add(int64(n))
	return n, err
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	*c.n += int64(n)
	localBytes.Add(int64(n))
	return n, err
}

// localFiles and localBytes count the files read to their end and the
// bytes read from disk in this process: the progress of an in-process run.
var localFiles, localBytes atomic.Int64

// LocalProgress returns the files read to their end and the bytes read
// from disk (compressed) in this process so far. A file read again (a
// retried bundle) counts again.
func LocalProgress() (files, bytes int64) { return localFiles.Load(), localBytes.Load() }

// section is random access to a whole stream, which a zip archive needs.
// Only a file read as is (not decompressed) has one.
type section struct {
	r    io.ReaderAt
	size int64
}

// reader walks the layers of one file: compression, archives, text.
type reader struct {
	b *batcher
}

// peekSize is the read-ahead of each stream: enough to see the first lines
// of a document and so tell JSON lines from one pretty-printed value.
const peekSize = 64 << 10

var bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, peekSize) }}

// stream reads one stream (a file, a decompressed stream or an archive
// member) named src in origins, detecting its format from its first bytes
// (and from name, its own file name, when they match nothing). at, if not
// nil, gives random access to the same bytes as r.
func (rd *reader) stream(src, name string, r io.Reader, at *section, depth int) error {
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		bufPool.Put(br)
	}()
	head, err := br.Peek(sniffLen)
	if len(head) == 0 {
		if err == nil || err == io.EOF {
			return nil // empty
		}
		if isReported(err) {
			return nil
		}
		return rd.fault(schemas.Origin{Source: src, Line: 1}, nil, faultOf(err, "file").Error())
	}
	if depth > maxDepth {
		return rd.fault(schemas.Origin{Source: src}, nil, fmt.Sprintf("archives or compression nested more than %d deep", maxDepth))
	}
	switch f := detect(head, name); f {
	case formatGzip, formatBzip2, formatZstd:
		return rd.decompress(f, src, name, br, depth)
	case formatTar:
		return rd.tar(src, br, depth)
	case formatZip:
		return rd.zip(src, br, at, depth)
	}
	return rd.text(src, br)
}

// fault adds a faulted record, handing over the batch if it is full.
func (rd *reader) fault(o schemas.Origin, data []byte, fault string) error {
	if rd.b.fault(o, data, fault) {
		return rd.b.flush(nil, 0)
	}
	return nil
}
