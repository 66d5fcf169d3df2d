package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/dustin/go-humanize"
)

// byteFlag is a flag holding a number of bytes, given as a plain integer
// or with a unit as go-humanize reads it: 65536, 64KiB, 32MiB, 1.5GB.
type byteFlag[T int | int64] struct{ p *T }

// bytesVar defines a byte-count flag name with default def, stored in p.
func bytesVar[T int | int64](fs *flag.FlagSet, p *T, name string, def T, usage string) {
	*p = def
	fs.Var(byteFlag[T]{p}, name, usage)
}

// String shows the value in binary units, as -h prints the default.
func (b byteFlag[T]) String() string {
	if b.p == nil {
		return "0"
	}
	return humanize.IBytes(uint64(max(*b.p, 0)))
}

// Set reads a byte count.
func (b byteFlag[T]) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return fmt.Errorf("want a number of bytes such as 65536, 64KiB or 32MiB, got %q", s)
	}
	var limit uint64 = math.MaxInt64
	if _, isInt := any(*b.p).(int); isInt {
		limit = math.MaxInt
	}
	if n > limit {
		return fmt.Errorf("%q is too large", s)
	}
	*b.p = T(n)
	return nil
}
