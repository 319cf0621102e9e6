package archiveio

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"io"
	"os"
	"path"
	"strings"

	"github.com/klauspost/compress/flate"

	"github.com/tweetindex/tweetindex/schemas"
)

// tar reads the members of a tar archive in order. A member that fails to
// decompress faults that member only; a failure of the archive itself ends
// it, with a fault at line 0 of the archive unless a member's record already
// carries it.
func (rd *reader) tar(src string, br *bufio.Reader, depth int) error {
	tr := tar.NewReader(br)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if isReported(err) {
				return nil
			}
			return rd.fault(schemas.Origin{Source: src}, nil, faultOf(err, "tar").Error())
		}
		if !hdr.FileInfo().Mode().IsRegular() || skipMember(hdr.Name) || !rd.b.opts.Range.Holds(src+"!"+hdr.Name) {
			continue
		}
		in := &faultReader{r: tr, format: "tar"}
		if err := rd.stream(src+"!"+hdr.Name, hdr.Name, in, nil, depth+1); err != nil {
			return err
		}
		if in.err != nil && in.err != io.EOF {
			// The archive itself broke inside this member.
			if isReported(in.err) {
				return nil
			}
			return rd.fault(schemas.Origin{Source: src}, nil, faultOf(in.err, "tar").Error())
		}
	}
}

// zip reads the members of a zip archive in directory order. A zip needs
// random access: one that is not a plain file on disk (a member of another
// archive, or compressed) is copied to a temporary file first.
func (rd *reader) zip(src string, br *bufio.Reader, at *section, depth int) error {
	if at == nil {
		tmp, err := os.CreateTemp("", "archiveio-*.zip")
		if err != nil {
			return rd.fault(schemas.Origin{Source: src}, nil, "cannot buffer zip archive: "+err.Error())
		}
		defer func() {
			tmp.Close()
			os.Remove(tmp.Name())
		}()
		size, err := io.Copy(tmp, br)
		if err != nil {
			if isReported(err) {
				return nil
			}
			return rd.fault(schemas.Origin{Source: src}, nil, faultOf(err, "zip").Error())
		}
		at = &section{tmp, size}
	}
	zr, err := zip.NewReader(at.r, at.size)
	if err != nil {
		return rd.fault(schemas.Origin{Source: src}, nil, (&streamError{format: "zip", err: err}).Error())
	}
	zr.RegisterDecompressor(zip.Deflate, flate.NewReader)
	for _, f := range zr.File {
		member := src + "!" + f.Name
		if !f.Mode().IsRegular() || skipMember(f.Name) || !rd.b.opts.Range.Holds(member) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			if err := rd.fault(schemas.Origin{Source: member, Line: 1}, nil, (&streamError{format: "zip", err: err}).Error()); err != nil {
				return err
			}
			continue
		}
		err = rd.stream(member, f.Name, &faultReader{r: rc, format: "zip"}, nil, depth+1)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// skipMember reports whether an archive member is not data: hidden files,
// such as macOS's "._name" resource forks, and the "__MACOSX/" folder.
func skipMember(name string) bool {
	return strings.HasPrefix(path.Base(name), ".") || strings.HasPrefix(name, "__MACOSX/")
}
