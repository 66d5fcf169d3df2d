package bench

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// checkTasks checks that cfg.Tasks are the tasks the server serves as
// cfg.Dataset (its first dataset when unnamed), the same ids in the same
// order: the order decides which task a seed draws. Without tasks it
// checks nothing.
func checkTasks(ctx context.Context, c *client.Client, cfg *Config, info *schemas.ServerInfo) error {
	if len(cfg.Tasks) == 0 {
		return nil
	}
	if cfg.Dataset == "" && len(info.Datasets) > 0 {
		cfg.Dataset = info.Datasets[0].Name
	}
	served, err := listTasks(ctx, c, cfg)
	if err != nil {
		return err
	}
	if diff := taskDiff(served, cfg.Tasks); diff != "" {
		return fmt.Errorf("bench: the dataset given is not the one the server serves as %q: %s; "+
			"give the same dataset spec as the server's --dataset", cfg.Dataset, diff)
	}
	return nil
}

// listTasks reads every task id of cfg.Dataset from the server, a page
// of 10,000 at a time.
func listTasks(ctx context.Context, c *client.Client, cfg *Config) ([]string, error) {
	var ids []string
	for {
		cctx, cancel := context.WithTimeout(ctx, cfg.CallTimeout)
		page, err := c.Tasks(cctx, schemas.TasksListParams{Dataset: cfg.Dataset, Offset: len(ids), Limit: 10000})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("bench: tasks.list of %q: %w", cfg.Dataset, err)
		}
		for _, t := range page.Tasks {
			ids = append(ids, t.TaskID)
		}
		if len(page.Tasks) == 0 || len(ids) >= page.Total {
			return ids, nil
		}
	}
}

// taskDiff says where the served ids and the local tasks first differ;
// "" when they agree.
func taskDiff(served []string, local []Task) string {
	for i := range min(len(served), len(local)) {
		if served[i] != local[i].ID {
			return fmt.Sprintf("task %d is %s on the server, %s here", i, served[i], local[i].ID)
		}
	}
	if len(served) != len(local) {
		return fmt.Sprintf("the server has %d tasks, this side %d", len(served), len(local))
	}
	return ""
}

// goldActions are the gold script's steps: execute_sql of the gold
// repeats times, then submit it.
func goldActions(episodeID, gold string, repeats int) []*action {
	run := toolAction(episodeID, "execute_sql", gold)
	out := make([]*action, 0, repeats+1)
	for range repeats {
		out = append(out, run)
	}
	return append(out, toolAction(episodeID, "submit", gold))
}
