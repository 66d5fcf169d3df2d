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
	cpu, mem string
}

func (p *profileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "",
		"write a CPU profile (pprof) of the whole run to this file; an in-process bench server's samples carry the label sqlgym=server")
	fs.StringVar(&p.mem, "memprofile", "",
		"write the allocations of the whole run (pprof allocs profile: go tool pprof -sample_index=alloc_space) to this file when the run ends")
}

// start starts the CPU profile when --cpuprofile is set and creates the
// --memprofile file when that is set, so that a bad path fails before
// the run; stop ends the CPU profile and writes the allocations profile.
// Without the flags both do nothing.
func (p *profileFlags) start() (stop func() error, err error) {
	var mem *os.File
	if p.mem != "" {
		if mem, err = os.Create(p.mem); err != nil {
			return nil, fmt.Errorf("--memprofile: %w", err)
		}
	}
	stopCPU, err := p.startCPU()
	if err != nil {
		if mem != nil {
			mem.Close()
		}
		return nil, err
	}
	return func() error {
		err := stopCPU()
		if merr := writeAllocs(mem); err == nil {
			err = merr
		}
		return err
	}, nil
}

// writeAllocs writes the allocations profile to f and closes it; a nil f
// does nothing.
func writeAllocs(f *os.File) error {
	if f == nil {
		return nil
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}

// startCPU starts the CPU profile when --cpuprofile is set.
func (p *profileFlags) startCPU() (stop func() error, err error) {
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
