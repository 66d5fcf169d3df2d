package console_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/peer"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// openStream opens a live stream from peer n and reads its first event;
// it returns the answer, whose body the test closes.
func openStream(t *testing.T, url string, n int) *http.Response {
	t.Helper()
	resp, err := peer.HTTPClient(n).Get(url + "/ui/live/events")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestLiveStreamsFloodLeavesOthersServed checks issue #32's live-page
// case (the bound is 2 in these tests): one client reading every stream
// (all its own while no one else asks) does not keep another client's
// live page at 503: the flooder's oldest stream is closed for it, and
// the flooder, at its share, is refused saying so.
func TestLiveStreamsFloodLeavesOthersServed(t *testing.T) {
	rec := startRecorded(t, "")
	oldest := openStream(t, rec.URL, 2)
	first, err := bufio.NewReader(oldest.Body).ReadString('\n')
	if oldest.StatusCode != http.StatusOK || err != nil || !strings.HasPrefix(first, ": connected") {
		t.Fatalf("the flooder's first stream: %s %q %v", oldest.Status, first, err)
	}
	if resp := openStream(t, rec.URL, 2); resp.StatusCode != http.StatusOK {
		t.Fatalf("alone, the flooder's second stream: %s", resp.Status)
	}
	waitfor.Until(t, "two subscribers", func() bool { return rec.Live.Subscribers() == 2 })
	if resp := openStream(t, rec.URL, 3); resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("an honest live page while the flooder reads every stream: %s %q", resp.Status, b)
	}
	if rest, err := io.ReadAll(oldest.Body); err != nil || len(rest) != 0 && !strings.HasPrefix(string(rest), "\n") {
		t.Fatalf("the flooder's oldest stream after the reclaim: %q %v, want it ended", rest, err)
	}
	resp := openStream(t, rec.URL, 2)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "fair share") {
		t.Fatalf("the flooder above its share: %s %q, want 503 saying it holds its share", resp.Status, b)
	}
}
