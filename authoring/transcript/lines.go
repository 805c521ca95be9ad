package transcript

import (
	"bufio"
	"bytes"
	"io"
)

// lineReader reads lines of at most max bytes and says where each starts, so
// that a record can be read again later with ReadAt.
type lineReader struct {
	r    *bufio.Reader
	max  int
	long []byte // a line longer than the buffer, assembled; reused
	line int    // number of the line last returned (or refused)
	off  int64  // offset of the next line
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line ending and the offset of its
// first byte. The line is valid until the next call. It returns io.EOF after
// the last line and errTooLong for a line over max bytes (lr.line is then the
// number of that line).
func (lr *lineReader) next() ([]byte, int64, error) {
	start := lr.off
	lr.long = lr.long[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.off += int64(len(chunk))
		if err == bufio.ErrBufferFull {
			if len(lr.long)+len(chunk) > lr.max {
				lr.line++
				return nil, start, errTooLong
			}
			lr.long = append(lr.long, chunk...)
			continue
		}
		if err != nil && err != io.EOF {
			return nil, start, err
		}
		if err == io.EOF && len(chunk) == 0 && len(lr.long) == 0 {
			return nil, start, io.EOF
		}
		lr.line++
		line := chunk
		if len(lr.long) > 0 {
			lr.long = append(lr.long, chunk...)
			line = lr.long
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > lr.max {
			return nil, start, errTooLong
		}
		return line, start, nil
	}
}
