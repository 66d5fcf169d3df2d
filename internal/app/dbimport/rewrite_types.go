package dbimport

import (
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// operand is a comparison's side: a column reference (first to last
// significant token) with its column's type, or a literal.
type operand struct {
	first, last int
	typ         string // the column's type; "" when unknown
	number      bool   // a numeric literal
}

// comparisons makes the comparisons SQLite settles by affinity explicit
// where PostgreSQL would refuse the types: a text column against a number
// (SQLite compares as text), a text column against a number column
// (SQLite compares as numbers).
func (r *rewriter) comparisons() {
	for k := 0; k < len(r.sig); k++ {
		switch {
		case isCompare(r.tok(k).Text):
			end := k
			for isCompare(r.tok(end + 1).Text) {
				end++
			}
			op := ""
			for i := k; i <= end; i++ {
				op += r.tok(i).Text
			}
			r.compare(r.operandBefore(k-1), r.operandAfter(end+1), op)
			k = end
		case r.is(k, "between") || r.is(k, "in"):
			r.list(k)
		}
	}
}

func isCompare(s string) bool { return s == "=" || s == "<" || s == ">" || s == "!" }

// compare fixes one comparison of a and b.
func (r *rewriter) compare(a, b operand, op string) {
	switch {
	case a.typ == TypeText && b.number:
		r.quoteNumber(b.first)
	case b.typ == TypeText && a.number:
		r.quoteNumber(a.first)
	case a.typ == TypeText && isNumeric(b.typ):
		r.mixed(a, b, op)
	case b.typ == TypeText && isNumeric(a.typ):
		r.mixed(b, a, op)
	}
}

// mixed fixes a text column compared with a number column: equality by
// the number's text, order by the text's number.
func (r *rewriter) mixed(text, num operand, op string) {
	if op == "=" || op == "!=" || op == "<>" || op == "==" {
		r.tok(num.first).Text = r.d.textBefore + r.tok(num.first).Text
		r.tok(num.last).Text += r.d.textAfter
		r.apply(RuleMixedJoin)
		return
	}
	r.tok(text.first).Text = "CAST(" + r.tok(text.first).Text
	r.tok(text.last).Text += " AS " + r.d.double + ")"
	r.apply(RuleMixedOrder)
}

// list quotes the numbers of BETWEEN a AND b and IN (a, b, ...) when the
// column before is text.
func (r *rewriter) list(k int) {
	kw := k
	if r.is(k-1, "not") {
		k--
	}
	if r.is(kw, "in") && r.is(kw+2, "select") {
		r.compare(r.operandBefore(k-1), r.operandAfter(kw+1), "=")
		return
	}
	if r.operandBefore(k-1).typ != TypeText {
		return
	}
	if r.is(kw, "between") {
		for _, i := range []int{kw + 1, kw + 3} {
			if r.tok(i).Kind == sqltext.Number {
				r.quoteNumber(i)
			}
		}
		return
	}
	if r.tok(kw+1).Text != "(" {
		return
	}
	for i := kw + 2; r.tok(i).Kind == sqltext.Number || r.tok(i).Text == ","; i++ {
		if r.tok(i).Kind == sqltext.Number {
			r.quoteNumber(i)
		}
	}
}

func (r *rewriter) quoteNumber(k int) {
	t := r.tok(k)
	if t.Kind == sqltext.Number && !strings.HasPrefix(t.Text, "'") {
		t.Text = sqlString(t.Text)
		r.apply(RuleTextVsNumber)
	}
}

// operandBefore reads the operand ending at significant token k.
func (r *rewriter) operandBefore(k int) operand {
	if r.tok(k).Kind == sqltext.Number {
		return operand{first: k, last: k, number: true}
	}
	if r.tok(k-1).Text == "." {
		return r.column(k-2, k)
	}
	return r.column(k, k)
}

// operandAfter reads the operand starting at significant token k; a
// subquery selecting one column is that column.
func (r *rewriter) operandAfter(k int) operand {
	if r.tok(k).Text == "(" && r.is(k+1, "select") {
		k += 2
		if r.is(k, "distinct") {
			k++
		}
		o := r.operandAfter(k)
		if !r.is(o.last+1, "from") {
			return operand{first: k, last: k}
		}
		return o
	}
	if r.tok(k).Text == "-" && r.tok(k+1).Kind == sqltext.Number {
		return operand{first: k + 1, last: k + 1, number: true}
	}
	if r.tok(k).Kind == sqltext.Number {
		return operand{first: k, last: k, number: true}
	}
	if r.tok(k+1).Text == "." {
		return r.column(k, k+2)
	}
	return r.column(k, k)
}

// column resolves the reference from first to last: [qualifier .] name.
// A function call or a keyword is no column.
func (r *rewriter) column(first, last int) operand {
	o := operand{first: first, last: last}
	name := identName(r.tok(last))
	if name == "" || r.tok(last+1).Text == "(" || (r.tok(last).Kind == sqltext.Word && isKeyword(name)) {
		return o
	}
	tables := r.tablesFor(first, name)
	if first != last {
		tables = r.aliases[identName(r.tok(first))]
	}
	o.typ = r.s.columnType(tables, name)
	return o
}
