package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
)

// profileFlags are the profiling flags of the commands that run a server
// (serve, bench).
type profileFlags struct {
	cpu string
}

func (p *profileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "",
		"write a CPU profile (pprof) of the whole run to this file; an in-process bench server's samples carry the label sqlgym=server")
}

// start starts the CPU profile when --cpuprofile is set; stop ends it and
// closes the file. Without the flag both do nothing.
func (p *profileFlags) start() (stop func() error, err error) {
	if p.cpu == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(p.cpu)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}

// withProfile runs f with the CPU profile of p running, and stops it
// afterwards; f's error comes first.
func withProfile(p *profileFlags, f func() error) error {
	stop, err := p.start()
	if err != nil {
		return err
	}
	err = f()
	if serr := stop(); err == nil {
		err = serr
	}
	return err
}

// serverLabels marks the goroutines of an in-process server, and those
// they start, so a profile of a bench run can tell the server's samples
// from the load generator's (go tool pprof -tagfocus sqlgym=server).
func serverLabels(ctx context.Context, f func(context.Context)) {
	pprof.Do(ctx, pprof.Labels("sqlgym", "server"), f)
}
