package console_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/console"
)

// gatedReader is a store whose every read announces itself on entered,
// then waits for open to close: a report held mid-read for as long as
// the test wants.
type gatedReader struct {
	records
	entered chan struct{}
	open    chan struct{}
}

func (g gatedReader) Episodes(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	g.entered <- struct{}{}
	<-g.open
	return g.records.Episodes(ctx, f, fn)
}

// TestReportPagesAreBounded holds one report mid-read with a bound of
// one: a second is refused with 503 saying why, and once the first is
// done another is served.
func TestReportPagesAreBounded(t *testing.T) {
	g := gatedReader{records: records{hostileRecord(t)}, entered: make(chan struct{}, 2), open: make(chan struct{})}
	base, _ := startConsole(t, console.Config{Store: console.ReaderStore{R: g}, MaxReports: 1})
	first := make(chan int)
	go func() {
		resp, err := http.Get(base + "/ui/report")
		if err != nil {
			first <- 0
			return
		}
		io.Copy(io.Discard, resp.Body) // to its end: the server has finished the request
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	<-g.entered
	resp, body := get(t, base+"/ui/report")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "at most 1 reports at once") {
		t.Fatalf("a second report while one is read: %s %.300q, want 503 saying why", resp.Status, body)
	}
	close(g.open)
	if code := <-first; code != http.StatusOK {
		t.Fatalf("the first report: %d", code)
	}
	if resp, _ := get(t, base+"/ui/report"); resp.StatusCode != http.StatusOK {
		t.Fatalf("a report once the first is done: %s", resp.Status)
	}
}
