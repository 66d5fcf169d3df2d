package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/repl"
	"github.com/sqlgym/sqlgym/internal/app/repl/local"
)

// replFlags are the flags of sqlgym repl.
type replFlags struct {
	stack       stackFlags // for the in-process server
	url         string
	token       string
	history     string
	echo        bool
	idleTimeout time.Duration
	logLevel    string
}

func runRepl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return replMain(ctx, args, os.Stdin, stdout, stderr)
}

// replMain is sqlgym repl reading its commands from stdin.
func replMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("repl", stderr)
	var f replFlags
	f.stack.register(fs)
	fs.StringVar(&f.url, "url", "", "server to connect to, ws://HOST:PORT/v1/ws (empty: start one in this process on 127.0.0.1 with the stack flags)")
	fs.StringVar(&f.token, "token", "", "bearer token of the server at --url")
	fs.StringVar(&f.history, "history", repl.DefaultHistoryFile(os.Getenv), "file keeping the lines typed at a terminal (empty: none)")
	fs.BoolVar(&f.echo, "echo", false, "print each command read from a pipe after its prompt, so the output reads as a transcript")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", time.Hour, "in-process server: idle time after which an episode is abandoned")
	fs.StringVar(&f.logLevel, "log-level", "warn", "in-process server: log level (to stderr): debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.idleTimeout <= 0 {
		return usageError{"--idle-timeout must be positive"}
	}
	cfg := repl.Config{URL: f.url, Token: f.token, Stdin: stdin, Stdout: stdout, HistoryFile: f.history, Echo: f.echo}
	if f.url != "" {
		return repl.Run(ctx, cfg)
	}
	log, err := newLogger("console", f.logLevel, stderr)
	if err != nil {
		return err
	}
	defer log.Sync()
	return withLocalServer(ctx, &f, log, func(url, token string, st *serveStack) error {
		cfg.URL, cfg.Token = url, token
		cfg.Local = &local.Local{Datasets: st.Datasets, Catalog: st.Catalog, Runner: st.Runner, Judge: st.Judge}
		return repl.Run(ctx, cfg)
	})
}

// withLocalServer serves the stack on a loopback port, behind a random
// token, for as long as use runs, then shuts the server down.
func withLocalServer(ctx context.Context, f *replFlags, log *zap.Logger, use func(url, token string, st *serveStack) error) error {
	key := make([]byte, 16)
	rand.Read(key)
	opts := serverOpts{token: hex.EncodeToString(key), maxEpisodes: 64, idleTimeout: f.idleTimeout,
		frameBytes: transport.DefaultMaxFrameBytes, grace: 5 * time.Second, replyDelay: transport.DefaultReplyDelay}
	return serveLoopback(ctx, &f.stack, opts, log, func(url string, st *serveStack) error { return use(url, opts.token, st) })
}
