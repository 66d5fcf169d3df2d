package reward

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Value classes, in the order tolerant sorting puts them.
const (
	classNull = iota
	classNumber
	classString
	classBytes
	classOther
)

// Key tags. A key is a tag byte followed by a fixed-width or
// length-prefixed payload, so keys concatenate without ambiguity.
const (
	tagNull   = 'N'
	tagInt    = 'I'
	tagFloat  = 'F'
	tagNaN    = 'n'
	tagString = 'S'
	tagBytes  = 'B'
	tagOther  = 'X'
)

// appendKey appends v's key to b. Two values get the same key exactly when
// Python's == holds between them as sqlite3 returns them: an int equals a
// float of the same value (1 == 1.0, -0.0 == 0), compared exactly
// (2**53+1 != 2.0**53); a string never equals a number or bytes; NULL
// equals only NULL. NaN equals NaN, so every result equals itself.
func appendKey(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, tagNull)
	case int64:
		return appendInt(b, x)
	case float64:
		return appendFloat(b, x)
	case string:
		return appendBlob(append(b, tagString), x)
	case []byte:
		return appendBlob(append(b, tagBytes), string(x))
	case bool:
		if x {
			return appendInt(b, 1)
		}
		return appendInt(b, 0)
	case int:
		return appendInt(b, int64(x))
	case int32:
		return appendInt(b, int64(x))
	case float32:
		return appendFloat(b, float64(x))
	default:
		return appendBlob(append(b, tagOther), fmt.Sprintf("%T:%v", v, v))
	}
}

func appendInt(b []byte, i int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, tagInt), uint64(i))
}

// appendFloat keys an integral float that fits int64 as that integer, so
// it meets the ints it equals; other floats key by their bits.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) {
		return append(b, tagNaN)
	}
	if i, ok := floatInt(f); ok {
		return appendInt(b, i)
	}
	return binary.BigEndian.AppendUint64(append(b, tagFloat), math.Float64bits(f))
}

// floatInt returns f as an int64 when f is integral and in int64's range.
func floatInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

func appendBlob(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// numeric returns v as a float64 and its class.
func numeric(v any) (float64, int) {
	switch x := v.(type) {
	case nil:
		return 0, classNull
	case int64:
		return float64(x), classNumber
	case float64:
		return x, classNumber
	case bool:
		if x {
			return 1, classNumber
		}
		return 0, classNumber
	case int:
		return float64(x), classNumber
	case int32:
		return float64(x), classNumber
	case float32:
		return float64(x), classNumber
	case string:
		return 0, classString
	case []byte:
		return 0, classBytes
	default:
		return 0, classOther
	}
}

// interner gives each distinct value (by key) a small id and remembers,
// per id, what tolerant matching needs: its class, its number and its key.
type interner struct {
	ints  map[int64]int32  // values whose key is an integer's
	ids   map[string]int32 // every other value, by key
	class []int8
	num   []float64
	keys  []string // "" for values in ints
	buf   []byte
}

func newInterner() *interner {
	return &interner{ints: map[int64]int32{}, ids: map[string]int32{}}
}

func (in *interner) id(v any) int32 {
	if i, ok := intValue(v); ok {
		if id, ok := in.ints[i]; ok {
			return id
		}
		id := in.add(v, "")
		in.ints[i] = id
		return id
	}
	in.buf = appendKey(in.buf[:0], v)
	if id, ok := in.ids[string(in.buf)]; ok {
		return id
	}
	k := string(in.buf)
	id := in.add(v, k)
	in.ids[k] = id
	return id
}

// lookup returns v's id without adding it; ok is false when v was never
// interned. It keys v in *buf, not in the interner's buffer, so an
// interner no one adds to any more can be read concurrently.
func (in *interner) lookup(v any, buf *[]byte) (id int32, ok bool) {
	if i, isInt := intValue(v); isInt {
		id, ok = in.ints[i]
		return id, ok
	}
	*buf = appendKey((*buf)[:0], v)
	id, ok = in.ids[string(*buf)]
	return id, ok
}

func (in *interner) add(v any, key string) int32 {
	id := int32(len(in.keys))
	f, c := numeric(v)
	in.class = append(in.class, int8(c))
	in.num = append(in.num, f)
	in.keys = append(in.keys, key)
	return id
}

// intValue returns the integer that v's key stands for, when it is one:
// an int64, or a float equal to one.
func intValue(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return floatInt(x)
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case float32:
		return floatInt(float64(x))
	}
	return 0, false
}

// table is a result set as interned ids, row-major.
type table struct {
	rows, cols int
	ids        []int32
}

func (t table) at(r, c int) int32 { return t.ids[r*t.cols+c] }

// intern turns rows into a table; ok is false when the rows are ragged.
func (in *interner) intern(rows [][]any) (table, bool) {
	t := table{rows: len(rows)}
	if len(rows) > 0 {
		t.cols = len(rows[0])
	}
	t.ids = make([]int32, 0, t.rows*t.cols)
	for _, row := range rows {
		if len(row) != t.cols {
			return t, false
		}
		for _, v := range row {
			t.ids = append(t.ids, in.id(v))
		}
	}
	return t, true
}

// idsKey packs ids into a string usable as a map key.
func idsKey(buf []byte, ids []int32) []byte {
	for _, id := range ids {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(id))
	}
	return buf
}
