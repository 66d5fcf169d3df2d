// Package repl is sqlgym's interactive shell for people who debug
// episodes: it connects to an episode server, starts episodes, sends the
// model's tools by hand (SQL ending in ";" runs execute_sql), shows what
// the model would see, and prints each step's reward with its components.
//
// On a terminal, lines are edited with liner and kept in a history file;
// SQL may span lines up to the one that ends it with ";" (the prompt
// turns into a continuation prompt meanwhile), Ctrl-C drops the line or
// statement being typed and Ctrl-D quits. When standard input is not a
// terminal, commands are read line by line and the output is plain (no
// prompts, no colour), so a session can be scripted, piped and compared.
//
// SQL typed with no episode live is refused with a hint rather than
// starting an episode by itself: a step costs a turn of a task, and a
// task the user never saw would make its reward meaningless.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// Config says where the REPL connects and how it talks to the user.
type Config struct {
	// URL is the server's WebSocket endpoint, ws://HOST:PORT/v1/ws.
	URL string
	// Token is the bearer token the server wants, if any.
	Token string
	// Stdin holds the commands. When it and Stdout are both terminals
	// (os.Stdin and os.Stdout), lines are edited with liner on the
	// process's standard input and output; otherwise they are read line
	// by line with no prompt.
	Stdin io.Reader
	// Stdout receives everything the REPL prints, errors included, so a
	// transcript keeps them in order.
	Stdout io.Writer
	// HistoryFile is where the lines typed on a terminal are kept across
	// sessions; "" keeps none. DefaultHistoryFile gives the usual place.
	HistoryFile string
	// Echo prints each command read from a script after its prompt, as
	// a terminal would show it, so a piped session reads as a transcript.
	Echo bool
	// Local reads the served databases and golds beside the episodes
	// (.peek, the tables and columns Tab completes, how a mismatch
	// differs from the gold); nil at a server elsewhere.
	Local Local
}

// Run connects to cfg.URL and reads commands until .quit, the end of the
// input (Ctrl-D) or the end of ctx. An episode still live at the end is
// closed, so the server records it. Only a failure to connect or to read
// the input is an error; a failing command prints its message and the
// session goes on.
func Run(ctx context.Context, cfg Config) error {
	c, err := client.Dial(ctx, cfg.URL, cfg.Token)
	if err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		c.Close()
		return fmt.Errorf("repl: %w", err)
	}
	s := newSession(ctx, cfg, c, info)
	defer func() { s.c.Close() }() // the client of the last connection
	if s.term {
		s.banner(cfg.URL)
	}
	err = s.loop(ctx)
	s.closeEpisode(context.WithoutCancel(ctx))
	if cerr := s.in.close(); err == nil {
		err = cerr
	}
	return err
}

// session is one run of the REPL.
type session struct {
	c          *client.Client
	info       *schemas.ServerInfo
	url, token string // where c connects, to connect again when the server went away
	in         lineSource
	out        *printer
	term       bool     // on a terminal: prompts, colour, waiting for Enter in .replay
	ep         *episode // the current episode; nil before the first .reset
	lost       bool     // the connection to the server has ended; the next command that needs it dials again
	local      Local    // the in-process server's databases; nil at a server elsewhere
	view       display
	last       *rawResult // the last result shown, for .csv and .json
	names      names      // the current database's tables and columns, for Tab
	noSchema   bool       // the server elsewhere does not answer tasks.schema
}

// newSession starts a session on the connection c: at a terminal, with
// line editing, colour (unless the environment says no) and the pager.
func newSession(ctx context.Context, cfg Config, c *client.Client, info *schemas.ServerInfo) *session {
	term := isTerminal(cfg.Stdin) && isTerminal(cfg.Stdout)
	s := &session{c: c, info: info, url: cfg.URL, token: cfg.Token, local: cfg.Local, term: term,
		out:  newPrinter(cfg.Stdout, term && colorWanted(os.Getenv)),
		view: display{vertical: verticalOff, pager: pagerCommand(os.LookupEnv)}}
	s.view.paging = s.view.pager != ""
	if term {
		s.in = openTerminal(cfg.HistoryFile, s.completer(ctx))
	} else {
		s.in = newScript(cfg.Stdin, cfg.Stdout, cfg.Echo)
	}
	return s
}

// loop reads and runs commands until the input ends or a command quits.
func (s *session) loop(ctx context.Context) error {
	for ctx.Err() == nil {
		cmd, err := s.next()
		switch {
		case errors.Is(err, errInterrupt):
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("repl: read input: %w", err)
		}
		if cmd == "" {
			continue
		}
		s.in.remember(historyEntry(cmd))
		if quit := s.exec(ctx, cmd); quit {
			return nil
		}
	}
	s.out.errorf("interrupted")
	return nil
}

// banner greets a person at a terminal.
func (s *session) banner(url string) {
	s.out.linef("connected to %s %s (%s) at %s", s.info.Name, s.info.Version, s.info.Protocol, url)
	for _, d := range s.info.Datasets {
		s.out.linef("  dataset %s: %d tasks (%s)", d.Name, d.Tasks, d.Dialect)
	}
	s.out.linef("Type .help for the commands, .reset to start an episode; SQL ends with ;")
}

// prompt is the main prompt: the database and turn of the live episode.
func (s *session) prompt() string {
	if s.ep == nil || s.ep.ended {
		return "sqlgym> "
	}
	return fmt.Sprintf("%s[%d/%d]> ", s.ep.reset.Task.DBID, s.ep.turns, s.ep.reset.MaxTurns)
}

// contPrompt is the continuation prompt, as wide as the main prompt.
func (s *session) contPrompt() string {
	p := s.prompt()
	if len(p) < 5 {
		return "...> "
	}
	return fmt.Sprintf("%*s> ", len(p)-2, "...")
}
