package filelog

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestLinesQueuedDuringAWriteGoOutTogether: while one line's write is in
// the operating system, three more appenders queue theirs; the writer then
// writes the three in one write(2). Every appender returns once its line
// is written, and the lines read back in the order the appenders came.
func TestLinesQueuedDuringAWriteGoOutTogether(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{})
	inWrite, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	l.beforeWrite = func() { once.Do(func() { close(inWrite); <-release }) }
	before := l.Stats()

	var wg sync.WaitGroup
	begin := func(i int) {
		wg.Go(func() {
			if err := l.Begin(context.Background(), episode(i)); err != nil {
				t.Error(err)
			}
		})
	}
	begin(1)
	<-inWrite // episode 1's line is being written, the log's mutex free
	for i := 2; i <= 4; i++ {
		begin(i)
		waitfor.Until(t, "the line to queue", func() bool {
			l.mu.Lock()
			defer l.mu.Unlock()
			return len(l.queuedLines) == i-1
		})
	}
	close(release)
	wg.Wait()

	st := l.Stats()
	if lines, writes := st.Lines-before.Lines, st.Writes-before.Writes; lines != 4 || writes != 2 {
		t.Errorf("%d lines in %d writes, want 4 in 2 (one, then the three queued)", lines, writes)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, order, rs := readAll(t, l, trajlog.Filter{Incomplete: true})
	want := []string{"ep_00001", "ep_00002", "ep_00003", "ep_00004"}
	if len(order) != len(want) || rs.Damaged != 0 {
		t.Fatalf("read %v (stats %+v), want %v", order, rs, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("read %v, want %v", order, want)
		}
	}
}

// TestCloseWaitsForQueuedLines: lines queued behind a write in progress
// are written even when Close comes meanwhile; appenders after Close are
// refused.
func TestCloseWaitsForQueuedLines(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{})
	inWrite, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	l.beforeWrite = func() { once.Do(func() { close(inWrite); <-release }) }
	var wg sync.WaitGroup
	for i := 1; i <= 2; i++ {
		wg.Go(func() {
			if err := l.Begin(context.Background(), episode(i)); err != nil {
				t.Error(err)
			}
		})
		if i == 1 {
			<-inWrite
		}
	}
	waitfor.Until(t, "the second line to queue", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.queuedLines) == 1
	})
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	waitfor.Until(t, "Close to begin", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.closed
	})
	if err := l.Begin(context.Background(), episode(3)); err == nil {
		t.Error("a Begin after Close was taken")
	}
	close(release)
	wg.Wait()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	got, _, _ := readAll(t, l, trajlog.Filter{Incomplete: true})
	if len(got) != 2 || got["ep_00001"] == nil || got["ep_00002"] == nil {
		t.Fatalf("read %d episodes, want episodes 1 and 2", len(got))
	}
}

// TestAWriterWritesOneGroup: the appender whose line was written returns
// without writing the lines that queued behind it; the first of those
// appenders writes them, in one write(2), after it.
func TestAWriterWritesOneGroup(t *testing.T) {
	l := mustOpen(t, t.TempDir(), Options{})
	defer l.Close()
	var writes sync.WaitGroup // holds the second write until the first appender has returned
	writes.Add(1)
	inFirst, releaseFirst, inSecond := make(chan struct{}), make(chan struct{}), make(chan struct{})
	n := 0
	l.beforeWrite = func() { // called with the log's mutex released, by one writer at a time
		n++
		switch n {
		case 1:
			close(inFirst)
			<-releaseFirst
		case 2:
			close(inSecond)
			writes.Wait()
		}
	}
	first := make(chan error, 1)
	go func() { first <- l.Begin(context.Background(), episode(1)) }()
	<-inFirst
	var wg sync.WaitGroup
	for i := 2; i <= 3; i++ {
		wg.Go(func() {
			if err := l.Begin(context.Background(), episode(i)); err != nil {
				t.Error(err)
			}
		})
		waitfor.Until(t, "the line to queue", func() bool {
			l.mu.Lock()
			defer l.mu.Unlock()
			return len(l.queuedLines) == i-1
		})
	}
	close(releaseFirst)
	<-inSecond // the queued group's write has begun
	select {
	case err := <-first:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitfor.Timeout):
		writes.Done()
		t.Fatal("the first appender did not return: it is writing the group queued behind it")
	}
	writes.Done()
	wg.Wait()
	if st := l.Stats(); st.Writes != 3 || st.Lines != 4 { // the open line, then 1, then 2 and 3
		t.Errorf("%d lines in %d writes, want 4 in 3", st.Lines, st.Writes)
	}
}
