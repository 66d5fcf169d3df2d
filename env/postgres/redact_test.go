package postgres

import "testing"

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://root:pw@h:5432/db#s":                  "postgres://root:xxxxx@h:5432/db#s",
		"postgresql://h/db?password=pw&sslmode=disable#s": "postgresql://h/db?password=xxxxx&sslmode=disable#s",
		"postgres://root@h/db#s":                          "postgres://root@h/db#s",
		"postgres://root:pw@h/db":                         "(unreadable source)",
		"data/database/x/x.sqlite":                        "data/database/x/x.sqlite",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
