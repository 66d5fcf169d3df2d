package episodes_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/internal/testkit/ajv"
	"github.com/sqlgym/sqlgym/internal/testkit/schematest"
	"github.com/sqlgym/sqlgym/schemas"
)

// validator checks JSON documents against the generated schemas of
// package schemas, and counts what each schema accepted, so a test can
// tell that every schema met a real document.
type validator struct {
	t        *testing.T
	compiled map[string]*jsv.Schema
	accepted map[string]int
	codes    map[int]bool // JSON-RPC error codes seen in replies
	// seen are the documents checked, each with whether the schema must
	// accept it, for Ajv to check again (ajvAgrees).
	seen  []ajv.Doc
	valid []bool
}

func newValidator(t *testing.T) *validator {
	t.Helper()
	return &validator{t: t, compiled: schematest.Compile(t), accepted: map[string]int{}, codes: map[int]bool{}}
}

// validate reports whether schema name accepts doc, and why not.
func (v *validator) validate(name string, doc []byte) error {
	s, ok := v.compiled[name]
	if !ok {
		v.t.Fatalf("no schema %q", name)
	}
	inst, err := jsv.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(inst)
}

// check fails the test unless schema name accepts doc.
func (v *validator) check(name string, doc []byte) {
	v.t.Helper()
	v.seen, v.valid = append(v.seen, ajv.Doc{Schema: name, Label: "a real document", JSON: doc}), append(v.valid, true)
	if err := v.validate(name, doc); err != nil {
		v.t.Errorf("%s rejects a real document: %v\ndocument: %s", name, err, clip(doc))
		return
	}
	v.accepted[name]++
}

// rejects fails the test unless schema name rejects doc.
func (v *validator) rejects(name string, doc []byte) {
	v.t.Helper()
	v.seen, v.valid = append(v.seen, ajv.Doc{Schema: name, Label: "params the server refuses", JSON: doc}), append(v.valid, false)
	if v.validate(name, doc) == nil {
		v.t.Errorf("%s accepts %s, which the server refuses", name, clip(doc))
	}
}

// ajvAgrees checks every document checked so far again with Ajv, in
// strict mode: it compiles every schema, accepts what the Go validator
// had to accept and rejects what it had to reject.
func (v *validator) ajvAgrees() {
	v.t.Helper()
	r := ajv.Run(v.t, ajv.Published(v.t), v.seen)
	for name, msg := range r.Compiled {
		if msg != "" {
			v.t.Errorf("Ajv (strict) does not compile %s: %s", name, msg)
		}
	}
	for i, errs := range r.Docs {
		if d := v.seen[i]; (len(errs) == 0) != v.valid[i] {
			v.t.Errorf("Ajv (strict), %s, %s: errors %v, want valid %v\ndocument: %s", d.Schema, d.Label, errs, v.valid[i], clip(d.JSON))
		}
	}
}

// unchecked lists the schemas that accepted no document, sorted.
func (v *validator) unchecked() []string {
	var out []string
	for name := range v.compiled {
		if v.accepted[name] == 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// wire speaks JSON-RPC over a real WebSocket and validates each frame
// both ways: the request and its params before sending, the reply's
// envelope and its result or error on receipt.
type wire struct {
	v       *validator
	rc      *rawConn
	next    int
	pending map[int]string // method of each request awaiting its reply
}

func newWire(v *validator, h *harness) *wire {
	return &wire{v: v, rc: h.raw(), pending: map[int]string{}}
}

// frame builds a request; params "" leaves them out.
func frame(id int, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

// send validates and sends a request with valid params, returning its id.
func (w *wire) send(method, params string) int {
	w.v.t.Helper()
	if params != "" {
		w.v.check(method+".params", []byte(params))
	}
	return w.sendRaw(method, params)
}

// sendRaw sends a request whose params may be invalid.
func (w *wire) sendRaw(method, params string) int {
	w.v.t.Helper()
	w.next++
	f := frame(w.next, method, params)
	w.v.check("rpc.request", []byte(f))
	if err := w.rc.ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
		w.v.t.Fatal(err)
	}
	w.pending[w.next] = method
	return w.next
}

// receive reads the next reply and validates it.
func (w *wire) receive() (int, json.RawMessage, *schemas.Error) {
	w.v.t.Helper()
	w.rc.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := w.rc.ws.ReadMessage()
	if err != nil {
		w.v.t.Fatalf("no reply: %v", err)
	}
	id, result, rpcErr := w.v.reply(b, w.pending)
	delete(w.pending, id)
	return id, result, rpcErr
}

// call sends a request with valid params and returns its reply.
func (w *wire) call(method, params string) (json.RawMessage, *schemas.Error) {
	w.v.t.Helper()
	id := w.send(method, params)
	got, result, rpcErr := w.receive()
	if got != id {
		w.v.t.Fatalf("%s: reply to id %d, want %d", method, got, id)
	}
	return result, rpcErr
}

// ok calls a method that must succeed and decodes its result into out.
func (w *wire) ok(method, params string, out any) json.RawMessage {
	w.v.t.Helper()
	result, rpcErr := w.call(method, params)
	if rpcErr != nil {
		w.v.t.Fatalf("%s %s: %v", method, params, rpcErr)
	}
	if out != nil {
		if err := json.Unmarshal(result, out); err != nil {
			w.v.t.Fatalf("%s result: %v", method, err)
		}
	}
	return result
}

// fails calls a method with valid params that must fail with code.
func (w *wire) fails(method, params string, code int) {
	w.v.t.Helper()
	if _, rpcErr := w.call(method, params); rpcErr == nil || rpcErr.Code != code {
		w.v.t.Errorf("%s %s: error %v, want code %d", method, params, rpcErr, code)
	}
}

// reply validates one reply: the envelope, then the result against the
// schema of the method its id was sent with, or the error object.
func (v *validator) reply(b []byte, pending map[int]string) (int, json.RawMessage, *schemas.Error) {
	v.t.Helper()
	v.check("rpc.response", b)
	var env struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		v.t.Fatalf("reply %s: %v", clip(b), err)
	}
	var id int
	json.Unmarshal(env.ID, &id) // a null id stays 0
	if env.Error != nil {
		v.check("rpc.error", env.Error)
		var e schemas.Error
		if err := json.Unmarshal(env.Error, &e); err != nil {
			v.t.Fatalf("error %s: %v", env.Error, err)
		}
		v.codes[e.Code] = true
		return id, nil, &e
	}
	method, ok := pending[id]
	if !ok {
		v.t.Fatalf("a result for id %s, which no request awaits: %s", env.ID, clip(b))
	}
	v.check(method+".result", env.Result)
	return id, env.Result, nil
}

// postRPC sends one request over POST /v1/rpc and validates the reply.
func (v *validator) postRPC(h *harness, method, params string) json.RawMessage {
	v.t.Helper()
	f := frame(1, method, params)
	v.check("rpc.request", []byte(f))
	v.check(method+".params", []byte(params))
	resp, err := h.hs.Client().Post(h.hs.URL+"/v1/rpc", "application/json", strings.NewReader(f))
	if err != nil {
		v.t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		v.t.Fatal(err)
	}
	_, result, rpcErr := v.reply(buf.Bytes(), map[int]string{1: method})
	if rpcErr != nil {
		v.t.Fatalf("POST %s: %v", method, rpcErr)
	}
	return result
}
