package sandbox

import (
	"errors"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// collect offers rows until the collector says stop, and returns the
// result and how many rows were offered.
func collect(c *Collector, rows [][]any) (*env.ResultSet, int, error) {
	for i, r := range rows {
		more, err := c.Add(r)
		if err != nil {
			return nil, i + 1, err
		}
		if !more {
			return c.Result(), i + 1, nil
		}
	}
	return c.Result(), len(rows), nil
}

func TestCollector(t *testing.T) {
	rows := [][]any{{int64(1), "héllo"}, {2.5, []byte("abcdef")}, {nil, true}, {int64(4), ""}}
	big := Ceilings{Rows: 100, Bytes: 1 << 20}
	tests := []struct {
		name    string
		lim     env.Limits
		ceil    Ceilings
		want    [][]any
		trunc   bool
		offered int
		kind    error
	}{
		{"all", env.Limits{}, big, rows, false, 4, nil},
		{"row cap reads one more", env.Limits{MaxRows: 2}, big, rows[:2], true, 3, nil},
		{"cells cut on a character", env.Limits{MaxCellBytes: 2}, big,
			[][]any{{int64(1), "h…"}, {2.5, []byte("ab")}, {nil, true}, {int64(4), ""}}, true, 4, nil},
		{"byte budget", env.Limits{MaxResultBytes: 2*(24+32) + 8 + 6 + 8 + 6}, big, rows[:2], true, 3, nil},
		{"row ceiling", env.Limits{}, Ceilings{Rows: 3, Bytes: 1 << 20}, nil, false, 4, env.ErrTooLarge},
		{"byte ceiling", env.Limits{}, Ceilings{Rows: 100, Bytes: 80}, nil, false, 2, env.ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector([]string{"a", "b"}, tc.lim, tc.ceil)
			rs, offered, err := collect(c, rows)
			if tc.kind != nil {
				if !errors.Is(err, tc.kind) || offered != tc.offered {
					t.Fatalf("err = %v after %d rows, want %v after %d", err, offered, tc.kind, tc.offered)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rs.Rows, tc.want) || rs.Truncated != tc.trunc || offered != tc.offered {
				t.Errorf("rows %v truncated %v after %d offered; want %v, %v, %d", rs.Rows, rs.Truncated, offered, tc.want, tc.trunc, tc.offered)
			}
		})
	}
}

func TestCollectorWantAndCopies(t *testing.T) {
	c := NewCollector(nil, env.Limits{MaxRows: 5}, Ceilings{Rows: 100, Bytes: 100})
	if got := c.Want(); got != 6 {
		t.Errorf("Want() = %d, want the cap plus one, 6", got)
	}
	if got := NewCollector(nil, env.Limits{}, Ceilings{Rows: 100, Bytes: 100}).Want(); got != 101 {
		t.Errorf("Want() without a cap = %d, want the ceiling plus one, 101", got)
	}
	blob := []byte("xy")
	c = NewCollector([]string{"b"}, env.Limits{}, Ceilings{Rows: 100, Bytes: 1000})
	c.Add([]any{blob})
	c.Add([]any{[]byte{}})
	blob[0] = 'z'
	if got := c.Result().Rows; string(got[0][0].([]byte)) != "xy" || got[1][0] == nil || len(got[1][0].([]byte)) != 0 {
		t.Errorf("rows = %#v, want a copy of the blob and an empty, non-nil one", got)
	}
	values := []any{"whole", "a long text"}
	c = NewCollector([]string{"a", "b"}, env.Limits{MaxCellBytes: 6}, Ceilings{Rows: 100, Bytes: 1000})
	c.Add(values)
	values[0], values[1] = "next", "row"
	if got := c.Result(); got.Rows[0][0] != "whole" || got.Rows[0][1] != "a long"+CutMark || !got.Truncated {
		t.Errorf("rows = %#v, truncated %v; want the whole text, the cut one, truncated", got.Rows, got.Truncated)
	}
	if _, err := c.Add([]any{struct{}{}}); err == nil {
		t.Error("a value of an unknown type was accepted")
	}
}
