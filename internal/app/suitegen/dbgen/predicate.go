package dbgen

import (
	"strings"
)

// comparisons are the comparison operators, as one or two tokens, and the
// operator each stands for.
var comparisons = map[string]string{
	"=": "=", "==": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
}

// arithmetic are the operators after which a column is no join's side
// (T1.x = T2.y + 1).
var arithmetic = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "|": true}

// flipped is the operator with its sides swapped: 30 < age is age > 30.
var flipped = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}

// predicate reads what follows operand a: a comparison, [NOT] BETWEEN,
// [NOT] IN or [NOT] LIKE (GLOB), and files its literals and joins.
func (r *goldReader) predicate(a operand) {
	i := a.end
	if op, next, ok := r.comparison(i); ok {
		if b, ok := r.operand(next); ok {
			r.compare(a, op, b)
		}
		return
	}
	if a.isLit {
		return
	}
	if isWord(r.toksAt(i), "not") {
		i++
	}
	switch strings.ToLower(r.at(i)) {
	case "between":
		r.between(a, i+1)
	case "in":
		r.in(a, i+1)
	case "like":
		if b, ok := r.operand(i + 1); ok && b.isLit {
			r.add(a, "like", b)
		}
	case "glob":
		if b, ok := r.operand(i + 1); ok && b.isLit {
			b.text = strings.NewReplacer("*", "%", "?", "_").Replace(b.text) // seeds as the LIKE it nearly is
			r.add(a, "like", b)
		}
	}
}

// comparison reads a comparison operator at token i, one token or two
// ("<" "=" is "<=", as Spider's spaced "> =" is too).
func (r *goldReader) comparison(i int) (op string, next int, ok bool) {
	if op, ok := comparisons[r.at(i)+r.at(i+1)]; ok && len(r.at(i)) == 1 && len(r.at(i+1)) == 1 {
		return op, i + 2, true
	}
	if op, ok := comparisons[r.at(i)]; ok {
		return op, i + 1, true
	}
	return "", 0, false
}

// compare files a comparison: a column with a literal (either side), or
// a join when both sides are columns, the operator is equality and no
// arithmetic follows.
func (r *goldReader) compare(a operand, op string, b operand) {
	switch {
	case !a.isLit && b.isLit:
		r.add(a, op, b)
	case a.isLit && !b.isLit:
		r.add(b, flipped[op], a)
	case !a.isLit && !b.isLit && op == "=" && !arithmetic[r.at(b.end)]:
		for _, x := range a.refs {
			for _, y := range b.refs {
				if x != y {
					r.facts.joins = append(r.facts.joins, join{x, y})
				}
			}
		}
	}
}

// between reads the two bounds of a BETWEEN at token i.
func (r *goldReader) between(a operand, i int) {
	lo, ok := r.operand(i)
	if !ok || !lo.isLit || !isWord(r.toksAt(lo.end), "and") {
		return
	}
	hi, ok := r.operand(lo.end + 1)
	if !ok || !hi.isLit {
		return
	}
	r.add(a, "between", lo)
	r.add(a, "between", hi)
}

// in reads the literals of an IN list at token i; a subquery has none.
func (r *goldReader) in(a operand, i int) {
	if r.at(i) != "(" {
		return
	}
	for i++; i < len(r.toks); i++ {
		b, ok := r.operand(i)
		if !ok || !b.isLit {
			return
		}
		r.add(a, "in", b)
		if r.at(b.end) != "," {
			return
		}
		i = b.end
	}
}

// add files literal b as compared with every column a names.
func (r *goldReader) add(a operand, op string, b operand) {
	for _, ref := range a.refs {
		r.facts.literals = append(r.facts.literals, literal{col: ref, op: op, text: b.text, quoted: b.quoted})
	}
}
