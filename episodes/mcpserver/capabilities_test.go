package mcpserver_test

import (
	"encoding/json"
	"testing"
)

// TestCapabilitiesAdvertiseToolsOnly: initialize advertises the tools
// (their list may change) and nothing the server does not do: no
// logging (deprecated by MCP's SEP-2577 and never sent), no prompts, no
// resources.
func TestCapabilitiesAdvertiseToolsOnly(t *testing.T) {
	h := start(t, options{})
	b, err := json.Marshal(h.connect(t, "").InitializeResult().Capabilities)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"tools":{"listChanged":true}}`; got != want {
		t.Fatalf("capabilities %s, want %s", got, want)
	}
}
