package filelog

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// Event kinds, the "ev" field of a line.
const (
	evOpen  = "open"  // a writer opened the log: episodes live before it never end
	evBegin = "begin" // an episode began: traj without steps ("steps":[])
	evStep  = "step"  // one step of a live episode
	evEnd   = "end"   // an episode ended: traj, the whole record (steps omitted when all were logged)
	evDone  = "done"  // an episode whose begin and steps were logged ended: traj holds only what the end set (slim.go)
)

// event is one line of a segment.
type event struct {
	Ev   string              `json:"ev"`
	Ep   string              `json:"ep,omitempty"`
	At   *time.Time          `json:"at,omitempty"`
	Traj *schemas.Trajectory `json:"traj,omitempty"`
	Step *schemas.StepRecord `json:"step,omitempty"`
	// Turns, on an end event, is the episode's number of steps, so that a
	// reader notices a step line it lost to damage.
	Turns int `json:"turns,omitempty"`
	// Slim is set on an end event read from a done line: traj holds
	// only the fields the end set (endFields), and the rest of the record
	// is the begin's (slim.go). Readers turn a done event into an end
	// event with Slim set, so that one path rebuilds both.
	Slim bool `json:"-"`
}

// crcTable is CRC-32C, which CPUs compute in hardware.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// crcPrefix starts the checksum field that closes every line:
// {...,"crc":"xxxxxxxx"}. The checksum covers the line as it would be
// without the field: everything before crcPrefix, then "}".
const (
	crcPrefix = `,"crc":"`
	crcSuffix = len(crcPrefix) + 8 + 2 // the prefix, 8 hex digits, `"}`
)

// encodeLine renders ev as one checksummed line, newline included.
// encoding/json escapes control characters and compacts raw messages, so
// the JSON holds no newline.
func encodeLine(ev *event) ([]byte, error) {
	return appendLine(nil, ev.Ev, ev)
}

// appendLine appends the line of ev, an event of kind (an *event or a
// *slimEvent), to dst, as encodeLine renders it.
func appendLine(dst []byte, kind string, ev any) ([]byte, error) {
	start := len(dst)
	out, err := schemas.AppendJSON(dst, ev)
	if err != nil {
		return dst, fmt.Errorf("encode %s event: %w", kind, err)
	}
	sum := crc32.Checksum(out[start:], crcTable)
	out = append(out[:len(out)-1], crcPrefix...) // the closing brace comes back after the field
	out = hex.AppendEncode(out, []byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
	return append(out, '"', '}', '\n'), nil
}

// linePool holds the buffers Begin, Step and End encode their lines into:
// a line is written as soon as it is encoded, so its buffer serves the
// next one. Lines longer than maxPooledLine (an end line carrying a long
// trajectory) are left to the garbage collector.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxPooledLine = 64 << 10

// Reasons a line is damaged.
var (
	errNoChecksum  = errors.New("no checksum")
	errBadChecksum = errors.New("checksum mismatch")
	errTorn        = errors.New("torn line (no newline at the end of the segment)")
)

// verifyLine checks a line's checksum; line has no newline.
func verifyLine(line []byte) error {
	n := len(line)
	if n < crcSuffix+2 || string(line[n-crcSuffix:n-crcSuffix+len(crcPrefix)]) != crcPrefix ||
		line[n-2] != '"' || line[n-1] != '}' {
		return errNoChecksum
	}
	var want [4]byte
	if _, err := hex.Decode(want[:], line[n-10:n-2]); err != nil {
		return errNoChecksum
	}
	sum := crc32.Update(0, crcTable, line[:n-crcSuffix])
	sum = crc32.Update(sum, crcTable, []byte{'}'})
	if sum != uint32(want[0])<<24|uint32(want[1])<<16|uint32(want[2])<<8|uint32(want[3]) {
		return errBadChecksum
	}
	return nil
}

// lineReader reads a segment line by line, with each line's offset.
type lineReader struct {
	r   *bufio.Reader
	off int64 // offset of the next line
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// next returns the next line without its newline and its offset. A last
// line with no newline comes back with errTorn; the end is io.EOF. The
// line is valid until the next call.
func (lr *lineReader) next() ([]byte, int64, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.buf = append(lr.buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(lr.buf) == 0:
			return nil, lr.off, io.EOF
		case err == io.EOF:
			off := lr.off
			lr.off += int64(len(lr.buf))
			return lr.buf, off, errTorn
		case err != nil:
			return nil, lr.off, err
		}
		off := lr.off
		lr.off += int64(len(lr.buf))
		return lr.buf[:len(lr.buf)-1], off, nil
	}
}
