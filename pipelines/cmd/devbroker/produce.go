package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dsnet/compress/bzip2"
	"github.com/klauspost/compress/zstd"
	"github.com/segmentio/kafka-go"
)

// produce produces the lines of files at a steady rate until they are all
// sent (once, or forever with -loop), -n messages are sent, or ctx ends.
func produce(ctx context.Context, args []string, stderr io.Writer) error {
	f, err := parseProducerFlags("produce", "messages", 1000, "FILES...", args, stderr)
	if err != nil {
		return err
	}
	src := &lineSource{files: f.inputs, loop: f.loop, warn: stderr}
	defer src.close()
	return f.send(ctx, stderr, src.next)
}

// lineSource reads the non-blank lines of files, in order, decompressing by
// file extension, as Kafka messages. A file that fails to read is reported
// and skipped from the point of failure.
type lineSource struct {
	files []string
	loop  bool
	warn  io.Writer

	i      int // next file
	f      *os.File
	closer io.Closer // the decompressor, if any
	r      *bufio.Reader
	lines  int // lines read since the first file was opened
}

// next returns up to n messages; none when every file has been read (and
// the source does not loop).
func (s *lineSource) next(n int) ([]kafka.Message, error) {
	var msgs []kafka.Message
	for len(msgs) < n {
		if s.r == nil {
			if s.i == len(s.files) {
				if !s.loop || s.lines == 0 {
					return msgs, nil
				}
				s.i = 0
			}
			if err := s.open(s.files[s.i]); err != nil {
				return nil, err
			}
			s.i++
		}
		line, err := s.r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			msgs = append(msgs, kafka.Message{Value: line})
			s.lines++
		}
		if err != nil {
			if err != io.EOF {
				// A damaged file (a truncated gzip member, say): keep what
				// was read and go on with the next one.
				fmt.Fprintf(s.warn, "devbroker: %s: %v; skipping the rest of it\n", s.files[s.i-1], err)
			}
			s.close()
		}
	}
	return msgs, nil
}

func (s *lineSource) open(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	var r io.Reader = f
	switch {
	case strings.HasSuffix(name, ".gz"):
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("produce: %s: %w", name, err)
		}
		r, s.closer = z, z
	case strings.HasSuffix(name, ".bz2"):
		z, err := bzip2.NewReader(f, nil)
		if err != nil {
			f.Close()
			return fmt.Errorf("produce: %s: %w", name, err)
		}
		r, s.closer = z, z
	case strings.HasSuffix(name, ".zst"):
		z, err := zstd.NewReader(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("produce: %s: %w", name, err)
		}
		r, s.closer = z, z.IOReadCloser()
	}
	s.f, s.r = f, bufio.NewReaderSize(r, 1<<20)
	return nil
}

func (s *lineSource) close() {
	if s.closer != nil {
		s.closer.Close()
		s.closer = nil
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.r = nil
}
