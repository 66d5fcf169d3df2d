// Command sqlgym is the text-to-SQL environment server for reinforcement
// learning, and its tools: one binary, one file per subcommand.
//
//	sqlgym serve     run the episode server (WebSocket JSON-RPC)
//	sqlgym repl      play episodes by hand
//	sqlgym bench     measure a server's throughput
//	sqlgym eval      score a predictions file; sqlgym check: a dataset's golds
//	sqlgym import    copy a SQLite dataset into PostgreSQL or MySQL/MariaDB, golds verified
//	sqlgym rollout   run a model through episodes; sqlgym report: its numbers
//	sqlgym replay    re-run recorded episodes; rescore, export: reuse them
//	sqlgym log       check the trajectory log (log verify)
//	sqlgym schemas   the wire protocol's JSON Schemas
//	sqlgym healthcheck  a server's /healthz probed (a container's HEALTHCHECK)
//
// Run "sqlgym help" for the list, "sqlgym CMD -h" for a command's flags
// ("sqlgym CMD --help-all" for every one), and docs/configuration.md for
// the config file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand.
type command struct {
	name     string
	short    string
	run      func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	examples []string // what its -h shows after short
}

func commands() []command {
	const spider = "--dataset spider:../shared/data/spider-dev"
	return []command{
		{"serve", "run the episode server on the demo dataset or --dataset", runServe, []string{
			"sqlgym serve " + spider + " --max-turns 6",
			`sqlgym serve --addr 0.0.0.0:8765 --token "$TOKEN"`}},
		{"mcp", "serve episodes to an agent harness as an MCP server over stdin and stdout (same stack flags as serve)", runMCP, []string{
			"sqlgym mcp --data-dir sqlgym-data",
			"sqlgym mcp " + spider + " --tools inspect_schema,execute_sql,search_values,describe_column,submit"}},
		{"repl", "play episodes by hand: a shell on a server (--url) or on the demo", runRepl, []string{
			"sqlgym repl",
			`sqlgym repl --url ws://127.0.0.1:8765/v1/ws --token "$TOKEN"`}},
		{"bench", "load a server (--url, or one in this process) with scripted episodes; report throughput", runBench, []string{
			"sqlgym bench --url ws://127.0.0.1:8765/v1/ws --duration 30s",
			"sqlgym bench " + spider + " --script gold --baseline"}},
		{"eval", "score a predictions file against a dataset (EX by difficulty and database)", runEval, []string{
			"sqlgym eval " + spider + " --predictions pred.sql --out verdicts.jsonl"}},
		{"testsuite", "build the test suites submissions are judged on (testsuite build), or say which are current (testsuite status)", runTestsuite, []string{
			"sqlgym testsuite build " + spider,
			"sqlgym testsuite status " + spider}},
		{"check", "run every gold of a dataset; report errors, timeouts, empty and slow golds", runCheck, []string{
			"sqlgym check " + spider + " --slow 2s"}},
		{"import", "copy a SQLite dataset into PostgreSQL or MySQL/MariaDB; write it as JSONL with golds verified in the server's dialect", runImport, []string{
			"sqlgym import " + spider + " --engine postgres://postgres@127.0.0.1:5432/sqlgym --out spider-pg",
			"sqlgym import " + spider + " --engine mysql://root@127.0.0.1:3306/ --out spider-mysql"}},
		{"replay", "re-run recorded episodes; report whether observations and rewards reproduce", runReplay, []string{
			"sqlgym replay --data-dir sqlgym-data",
			"sqlgym replay --data-dir sqlgym-data --tag policy=step-120 --all"}},
		{"rescore", "pay recorded episodes under another --reward spec; show what changed", runRescore, []string{
			"sqlgym rescore --data-dir sqlgym-data --reward spec.json"}},
		{"rollout", "run a model (any OpenAI-compatible endpoint) through episodes: report pass@k, accuracy, failures", runRollout, []string{
			"sqlgym rollout " + spider + " --model-url http://localhost:8000/v1 --model Qwen/Qwen2.5-7B-Instruct --samples 4 --limit 100",
			"sqlgym rollout " + spider + " --model-url http://localhost:11434/v1 --model qwen2.5:7b --run qwen-7b --teacher-hints gold_result"}},
		{"report", "the rollout report (pass@k, SC, first-shot, by difficulty and database) of recorded episodes", runReport, []string{
			"sqlgym report --data-dir sqlgym-data --run qwen-7b",
			"sqlgym report --data-dir sqlgym-data --by policy " + spider}},
		{"console", "the web console over a recorded log, read-only, with no episode server (serve carries it under /ui)", runConsole, []string{
			"sqlgym console --data-dir sqlgym-data " + spider,
			"sqlgym console --trajectories postgres://postgres@127.0.0.1:5432/sqlgym --addr 0.0.0.0:8766 --token \"$TOKEN\""}},
		{"export", "write training files (sft, dpo, raw) from recorded episodes", runExport, []string{
			"sqlgym export --data-dir sqlgym-data --format sft --outcome correct --out sft.jsonl"}},
		{"log", "check the trajectory log: log verify reads every segment's checksums and index", runLog, []string{
			"sqlgym log verify --data-dir sqlgym-data"}},
		{"schemas", "print the wire protocol's JSON Schemas (NAME, --list), or write them all to --out DIR", runSchemas, []string{
			"sqlgym schemas --list", "sqlgym schemas episode.step.result", "sqlgym schemas --out ./sqlgym-schemas"}},
		{"healthcheck", "exit 0 when a server's /healthz answers 200, 1 otherwise (the container image's HEALTHCHECK)", runHealthcheck, []string{
			"sqlgym healthcheck --addr 0.0.0.0:8765", "sqlgym healthcheck --url http://sqlgym:8765/healthz --timeout 3s"}},
		{"version", "print the version and the commit it was built from", runVersion, []string{"sqlgym version"}},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal now ends the process at once
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqlgym:", err)
		os.Exit(exitCode(err))
	}
}

// exitDamaged is the exit status of a command that found the trajectory
// log damaged (having done its work on the undamaged episodes).
const exitDamaged = 3

// exitCode is 2 for usage errors, exitDamaged for a damaged trajectory
// log, and 1 for everything else.
func exitCode(err error) int {
	var ue usageError
	var de damageError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &de):
		return exitDamaged
	}
	return 1
}

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	stderr = sharedWriter(stderr) // the logger and the command both write to it
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return usageError{"no command given"}
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, nil, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return usageError{fmt.Sprintf("unknown command %q", args[0])}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sqlgym COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.short)
	}
	fmt.Fprintln(w, "\nsqlgym --version prints the version and commit. Every flag can also be set by an SQLGYM_* environment variable "+
		"(--max-turns: SQLGYM_MAX_TURNS) or in a YAML file given as --config FILE (max-turns: 6); the command line wins, then the "+
		"environment, then the file. sqlgym CMD --help-all lists every flag of CMD.")
}
