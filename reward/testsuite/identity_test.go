package testsuite

import "testing"

// TestHashGolds checks that the golds' hash depends on the set of golds
// alone: not on their order or repeats, and not on where one gold ends
// and the next begins.
func TestHashGolds(t *testing.T) {
	base := HashGolds([]string{"SELECT 1", "SELECT 2"})
	tests := []struct {
		golds []string
		same  bool
	}{
		{[]string{"SELECT 2", "SELECT 1"}, true},
		{[]string{"SELECT 1", "SELECT 2", "SELECT 1"}, true},
		{[]string{"SELECT 1"}, false},
		{[]string{"SELECT 1", "SELECT 2 "}, false},
		{[]string{"SELECT 1\n", "SELECT 2"}, false},
		{[]string{"SELECT 1\n6:SELECT 2"}, false},
	}
	for _, tt := range tests {
		if got := HashGolds(tt.golds) == base; got != tt.same {
			t.Errorf("HashGolds(%q) equal to the base: %v, want %v", tt.golds, got, tt.same)
		}
	}
}
