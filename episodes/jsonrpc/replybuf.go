package jsonrpc

import (
	"encoding/json"
	"sync"

	"github.com/sqlgym/sqlgym/schemas"
)

// Reply frames are encoded into buffers that come back once the frame is
// written (or joined into a batch's), so that a step does not leave its
// reply, about a kilobyte, to the garbage collector. Frames larger than
// maxPooledReply are not kept.

const maxPooledReply = 64 << 10

var replyPool = sync.Pool{New: func() any { b := make([]byte, 0, 2<<10); return &b }}

// encode renders v as a reply frame in a buffer from the pool; an
// encoding failure becomes an internal-error reply.
func encode(v any) []byte {
	bp := replyPool.Get().(*[]byte)
	b, err := schemas.AppendJSON((*bp)[:0], v)
	if err != nil {
		b, _ = json.Marshal(&schemas.Response{JSONRPC: "2.0", ID: schemas.NullID,
			Error: &schemas.Error{Code: schemas.CodeInternal, Message: "internal error: encode reply: " + err.Error()}})
	}
	return b
}

// ReleaseFrame hands back a reply frame that Job.Run returned, once it has
// been written and nothing refers to it any more: its buffer serves a
// later reply. A frame not handed back is simply garbage.
func ReleaseFrame(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledReply {
		return
	}
	b = b[:0]
	replyPool.Put(&b)
}
