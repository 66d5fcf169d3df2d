package repl

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/sqlgym/sqlgym/env/sqltext"
)

// help is what .help prints.
const help = `SQL ending in ;          run execute_sql in the current episode (may span lines)
.tasks [dataset] [n]     list the first n tasks (10) of a dataset (the default one)
.reset [task_id | dataset] [--seed N] [--format hermes|tags] [--tools NAME,NAME]
                         start an episode: a task by id, or one drawn from a dataset
                         (by seed, else at random), offering the tools named (default:
                         the dataset's); an episode still live is closed
.schema [table]          run inspect_schema: every table, or one with keys and samples
.search PHRASE [--table T] [--column C] [--limit N]
                         run search_values: where the database stores a value like PHRASE
.describe TABLE COLUMN   run describe_column: the column's types, NULLs, distinct and
                         most frequent values (TABLE.COLUMN works too)
.submit SQL              submit the final answer: scores it and ends the episode
.text                    send a raw model completion, ended by a line .end, and show
                         how the server parsed it (the episode's action format)
.prompt                  show the episode's messages and tools
.trajectory              show the steps so far
.reward                  show the reward spec and the breakdown so far
.replay FILE|DIR [episode_id | N]
                         replay a recorded episode (trajectory JSON lines, or the log
                         in a data dir) on the same task: each recorded action is sent
                         again (one per Enter on a terminal), recorded and new
                         observation and reward compared
.peek SQL                run SQL on the episode's database beside the episode: no turn
                         spent, nothing recorded (only with the REPL's own server)
.vertical [on|off|auto]  show each row as a record, a line per column (auto: when the
                         table is wider than the terminal); \x toggles it too
.pager [on|off]          results taller than the terminal go through $PAGER (less)
.csv [FILE], .json [FILE]
                         write the last result (of SQL or .peek) as CSV or JSON
.help                    this text
.quit                    close the episode and leave (Ctrl-D too)
Each step costs a turn of the episode; a tool the episode does not offer is
refused before anything is sent. Tab completes commands, tables, columns and
SQL keywords. Ctrl-C drops the line or statement being typed; a command (a
line starting with .) typed inside a statement drops it too.`

// next reads one command: a dot command's line, or the lines of a SQL
// statement up to the one that ends it with ";". "" for a blank line or
// a -- comment line.
func (s *session) next() (string, error) {
	line, err := s.in.readLine(s.prompt())
	if err != nil {
		return "", err
	}
	trimmed := strings.TrimSpace(line)
	switch {
	case trimmed == "" || strings.HasPrefix(trimmed, "--"):
		return "", nil
	case strings.HasPrefix(trimmed, "."):
		return trimmed, nil
	case trimmed == `\x` || strings.HasPrefix(trimmed, `\x `):
		return ".vertical" + strings.TrimPrefix(trimmed, `\x`), nil // psql's name for it
	}
	lines := []string{line}
	for !complete(strings.Join(lines, "\n")) {
		line, err := s.in.readLine(s.contPrompt())
		if errors.Is(err, io.EOF) {
			s.out.errorf("the input ended inside a statement (no closing ;): it was not run")
		}
		if errors.Is(err, errInterrupt) {
			s.out.errorf("the statement being typed was dropped")
		}
		if err != nil {
			return "", err
		}
		if cmd := strings.TrimSpace(line); strings.HasPrefix(cmd, ".") && !open(strings.Join(lines, "\n")) {
			s.out.errorf("dropped the statement being typed (no closing ;): %s", oneLine(strings.Join(lines, " ")))
			return cmd, nil
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), nil
}

// open says whether sql ends inside a string, a quoted name or a /* */
// comment, where a line that starts with "." is text, not a command.
func open(sql string) bool {
	toks := sqltext.Tokens(sql + "\n")
	last := toks[len(toks)-1] // an unterminated token runs to the end, the line break included
	switch {
	case !strings.HasSuffix(last.Text, "\n"):
		return false
	case last.Kind == sqltext.String || last.Kind == sqltext.Ident:
		return true
	}
	return last.Kind == sqltext.Comment && strings.HasPrefix(last.Text, "/*")
}

// complete says whether sql ends with a ";" that is not inside a string,
// a quoted name or a comment; a -- comment may follow it.
func complete(sql string) bool {
	toks := sqltext.Tokens(sql)
	for i := len(toks) - 1; i >= 0; i-- {
		switch toks[i].Kind {
		case sqltext.Space:
		case sqltext.Comment:
			if !strings.HasPrefix(toks[i].Text, "--") {
				return false
			}
		case sqltext.Semicolon:
			return true
		default:
			return false
		}
	}
	return false
}

// trimStatement drops the white space around sql and its final ";".
func trimStatement(sql string) string {
	sql = strings.TrimSpace(sql)
	return strings.TrimSpace(strings.TrimSuffix(sql, ";"))
}

// exec runs one command and says whether the REPL should stop.
func (s *session) exec(ctx context.Context, cmd string) (quit bool) {
	if !strings.HasPrefix(cmd, ".") {
		if s.reconnect(ctx) {
			s.runSQL(ctx, cmd)
		}
		return false
	}
	name, rest, _ := strings.Cut(cmd, " ")
	if name == ".quit" {
		return true
	}
	c, ok := commandNamed(name)
	switch {
	case !ok:
		s.out.errorf("unknown command %s: .help lists the commands", name)
	case !c.server || s.reconnect(ctx):
		rest = strings.TrimSpace(rest)
		c.run(s, ctx, rest, strings.Fields(rest))
	}
	return false
}

// command is one dot command.
type command struct {
	name   string
	server bool // it calls the server (which is dialled again first, if it went away)
	run    func(s *session, ctx context.Context, rest string, args []string)
}

// commands are the dot commands but .quit, which exec handles.
var commands = []command{
	{".help", false, func(s *session, _ context.Context, _ string, _ []string) { s.out.linef("%s", help) }},
	{".tasks", true, func(s *session, ctx context.Context, _ string, args []string) { s.tasks(ctx, args) }},
	{".reset", true, func(s *session, ctx context.Context, _ string, args []string) { s.resetCmd(ctx, args) }},
	{".schema", true, func(s *session, ctx context.Context, _ string, args []string) { s.schema(ctx, args) }},
	{".search", true, func(s *session, ctx context.Context, _ string, args []string) { s.search(ctx, args) }},
	{".describe", true, func(s *session, ctx context.Context, _ string, args []string) { s.describe(ctx, args) }},
	{".submit", true, func(s *session, ctx context.Context, rest string, _ []string) { s.submit(ctx, rest) }},
	{".text", true, func(s *session, ctx context.Context, rest string, _ []string) { s.text(ctx, rest) }},
	{".prompt", false, func(s *session, _ context.Context, _ string, _ []string) { s.showPrompt() }},
	{".trajectory", true, func(s *session, ctx context.Context, _ string, _ []string) { s.trajectory(ctx) }},
	{".reward", true, func(s *session, ctx context.Context, _ string, _ []string) { s.reward(ctx) }},
	{".replay", true, func(s *session, ctx context.Context, _ string, args []string) { s.replay(ctx, args) }},
	{".peek", false, func(s *session, ctx context.Context, rest string, _ []string) { s.peek(ctx, rest) }},
	{".vertical", false, func(s *session, _ context.Context, _ string, args []string) { s.verticalCmd(args) }},
	{".pager", false, func(s *session, _ context.Context, _ string, args []string) { s.pagerCmd(args) }},
	{".csv", false, func(s *session, _ context.Context, _ string, args []string) { s.saveLast("csv", args) }},
	{".json", false, func(s *session, _ context.Context, _ string, args []string) { s.saveLast("json", args) }},
}

// commandNamed finds a dot command by its name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// readText reads a raw completion: first (the rest of the .text line, if
// any) and the lines after it up to a line ".end". ok is false when Ctrl-C
// or the end of the input dropped it.
func (s *session) readText(first string) (string, bool) {
	var lines []string
	if first != "" {
		lines = append(lines, first)
	}
	for {
		line, err := s.in.readLine(s.contPrompt())
		switch {
		case errors.Is(err, errInterrupt):
			return "", false
		case err != nil:
			s.out.errorf("the input ended before .end: the text was not sent")
			return "", false
		case strings.TrimSpace(line) == ".end":
			return strings.Join(lines, "\n"), true
		}
		lines = append(lines, line)
	}
}
