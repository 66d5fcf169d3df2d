// Package hardness computes the hardness level Spider's official
// evaluator gives a query (easy, medium, hard or extra), so that results
// on Spider can be broken down the way the benchmark reports them.
//
// Spider ships no difficulty: its evaluator (taoyds/spider, evaluation.py,
// Evaluator.eval_hardness with count_component1, count_component2 and
// count_others) parses the gold SQL with process_sql.py and counts its
// components. This package parses the same subset of SQL into the few
// facts those counts read, with the evaluator's quirks kept (for
// example, count_others counts a negated WHERE condition, and every
// AND/OR of HAVING, as an aggregation), so the level agrees with the
// official one. It reads SQL with env/sqltext's lexer and needs no
// schema: the counts depend on the query's structure only.
package hardness
