package soaktest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// The shares soak's bounds, the same on every engine: 8 statements on
// the server (2 kept for databases running nothing), 4 on one database
// (1 kept for episode groups running nothing there). A hostile group of
// 4 episodes on each of 3 databases gets at most 3 on each and 7 in all;
// the rest of it waits.
const (
	sharesMax       = "8"
	sharesPerDB     = "4"
	hostilePerDB    = 4
	hostileAdmitted = 6 // at least: 3 on two databases, more only by the third's first
	honestEpisodes  = 4
)

// sharesDBs are the Spider databases of the soak: the hostile group's
// three, the first of which an honest client shares, and the honest
// one's own.
var sharesDBs = []string{"concert_singer", "pets_1", "car_1", "flight_2"}

// engineCase is one engine of the shares soak: how to serve the four
// databases on it, and a statement that runs until its time runs out.
type engineCase struct {
	name  string
	serve func(t *testing.T, bin string) (args []string, dbIDs []string)
	slow  string
}

// TestSoakSharesPerEngine is issue 32's engine soak, on SQLite,
// PostgreSQL and MariaDB alike: a hostile episode group (tags.group)
// submits statements that run until their time runs out on three
// databases at once, and while they hold what they may, an honest
// client on a fourth database and one on the hostile group's first
// database see every statement start: every step succeeds within its
// own statement timeout, the bound, and the hostile statements are
// still held when the honest clients are done.
func TestSoakSharesPerEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("the shares soak imports four databases into two servers")
	}
	bin := binserver.Build(t) // once: every engine's server runs the same binary
	for _, c := range []engineCase{
		{name: "sqlite", serve: serveSQLite,
			slow: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"},
		{name: "postgres", serve: servePostgres, slow: "SELECT pg_sleep(120)"},
		{name: "mariadb", serve: serveMariaDB, slow: "SELECT SLEEP(120)"},
	} {
		t.Run(c.name, func(t *testing.T) { soakShares(t, bin, c) })
	}
}

// soakShares runs the soak on one engine, serving with the binary bin.
func soakShares(t *testing.T, bin string, c engineCase) {
	args, dbIDs := c.serve(t, bin)
	srv := binserver.Start(t, bin, append(args, "--data-dir", filepath.Join(t.TempDir(), "data"),
		"--log-format", "json", "--log-level", "error", "--submit-timeout", "60s", "--query-timeout", "30s")...)
	tasks := tasksOf(t, srv.URL)
	task := func(i int) string { return tasks["shares/"+dbIDs[i]][0] }

	ctx, cancel := context.WithCancel(context.Background())
	var hostile sync.WaitGroup
	for i := range 3 {
		hostile.Go(func() { submitGroup(ctx, t, srv.URL, task(i), c.slow, hostilePerDB) })
	}
	defer func() { cancel(); srv.Kill(); hostile.Wait() }()
	waitfor.Until(t, "the hostile group's statements held or waiting", func() bool {
		m := scrape(t, srv.HTTP()+"/metrics")
		return m["sqlgym_steps_running"] == 3*hostilePerDB && m["sqlgym_db_connections_in_use"] >= hostileAdmitted
	})

	var honest sync.WaitGroup
	for _, db := range []int{3, 0} {
		honest.Go(func() { playHonest(t, srv.URL, task(db), dbIDs[db]) })
	}
	honest.Wait()
	if m := scrape(t, srv.HTTP()+"/metrics"); m["sqlgym_db_connections_in_use"] < hostileAdmitted {
		t.Errorf("the hostile group held %v statements when the honest clients were done, want at least %d: "+
			"the soak did not hold the engine", m["sqlgym_db_connections_in_use"], hostileAdmitted)
	}
}
