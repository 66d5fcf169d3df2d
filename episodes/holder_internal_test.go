package episodes

import "testing"

// An episode's holder is its group when its tags name one, string or
// number, and the episode alone otherwise.
func TestHolderOf(t *testing.T) {
	for _, c := range []struct{ tags, want string }{
		{`{"group":7}`, "group:7"},
		{`{"group":"g-1","policy":"step-120"}`, `group:"g-1"`},
		{`{"group":null}`, "episode:e"},
		{`{"group":{"a":1}}`, "episode:e"},
		{`{"policy":"x"}`, "episode:e"},
		{``, "episode:e"},
	} {
		if got := holderOf("e", []byte(c.tags)); got != c.want {
			t.Errorf("holderOf(%s) = %q, want %q", c.tags, got, c.want)
		}
	}
}
