package testsuite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadManifest reads arbitrary bytes as a manifest: nothing panics,
// and a manifest that is accepted writes back and reads again the same.
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"format":1,"dataset":"demo","db_id":"d1","dialect":"sqlite",` +
		`"identity":{"generator":1,"params":{"seed":1,"candidates":10},"source":{"size":8192,"mod_time":"2026-01-02T03:04:05Z","sha256":"ab"},"golds_sha256":"cd"},` +
		`"databases":[{"name":"ts-0003","candidate":3,"file":"ts-0003.sqlite"}],` +
		`"golds":[{"sql":"SELECT 1","suite":["ts-0003"],"counts":{"neighbours":4,"by_suite":3}}],"build":{"seconds":1.5,"files":1}}`))
	f.Add([]byte(`{"format":1,"db_id":"d1","databases":[{"name":"a","source":"postgres://x"}],"golds":[{"sql":"q","suite":["a","a"]}]}`))
	f.Add([]byte(`{"format":1,"db_id":"..","databases":[]}`))
	f.Add([]byte(`{"format":2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.json")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(in)
		if err != nil {
			return
		}
		out := filepath.Join(dir, "out.json")
		if err := WriteManifest(out, m); err != nil {
			t.Fatalf("an accepted manifest does not write: %v", err)
		}
		again, err := ReadManifest(out)
		if err != nil {
			t.Fatalf("a written manifest does not read: %v", err)
		}
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("round trip changed the manifest:\n%s\n%s", a, b)
		}
	})
}
