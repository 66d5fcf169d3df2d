package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// malformedLines are lines a client may send `sqlgym mcp` that are no
// JSON-RPC 2.0 message, each with the error code it is answered with.
// Each of them once ended the process (exit 1, no reply), and the
// episode in progress with it.
var malformedLines = []struct {
	name, line string
	code       int
}{
	{"not JSON", "hello", -32700},
	{"an empty object", "{}", -32600},
	{"a NUL byte", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"\x00}", -32700},
	{"200k-deep nesting", strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000), -32700},
	{"a batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600},
	{"an object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
	{"a 20 MB line", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("a", 20<<20) + `"}}`, -32600},
	{"no jsonrpc member", `{"id":10,"method":"ping"}`, -32600},
}

// TestMCPStdioAnswersMalformedLines plays an episode over `sqlgym mcp`'s
// stdin with raw JSON-RPC lines, sends each malformed line in the middle
// of it, and wants a JSON-RPC error reply (id null, the code JSON-RPC
// gives) for each; the session goes on: the episode is finished to a
// right answer, and the process exits 0 when stdin closes.
func TestMCPStdioAnswersMalformedLines(t *testing.T) {
	cmd := exec.Command(binserver.Build(t), "mcp", "--data-dir", t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(binserver.LockedBuffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawMCP{t: t, in: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}
	c.call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.call(2, "tools/call", `{"name":"start_episode","arguments":{"task_id":"demo/library-001"}}`)
	for _, m := range malformedLines {
		c.send(m.line)
		reply := c.reply()
		if string(reply["id"]) != "null" || !strings.Contains(string(reply["error"]), fmt.Sprintf(`"code":%d`, m.code)) {
			t.Errorf("%s: reply %s %s; want id null and code %d", m.name, reply["id"], reply["error"], m.code)
		}
	}
	res := c.call(3, "tools/call", `{"name":"submit","arguments":{"sql":"SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'"}}`)
	if !strings.Contains(string(res), `"outcome":"correct"`) {
		t.Errorf("submit after the malformed lines: %s", res)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, stderr.String())
	}
}

// rawMCP speaks newline-delimited JSON-RPC to a process.
type rawMCP struct {
	t   *testing.T
	in  io.Writer
	out *bufio.Reader
}

func (c *rawMCP) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// reply is the next message the process writes that is not a
// notification.
func (c *rawMCP) reply() map[string]json.RawMessage {
	c.t.Helper()
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("reply %q: %v", line, err)
		}
		if m["method"] == nil {
			return m
		}
	}
}

// call sends a request and returns its result; an error reply fails the
// test.
func (c *rawMCP) call(id int, method, params string) json.RawMessage {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	r := c.reply()
	if string(r["id"]) != fmt.Sprint(id) || r["error"] != nil {
		c.t.Fatalf("%s: reply %v", method, r)
	}
	return r["result"]
}
