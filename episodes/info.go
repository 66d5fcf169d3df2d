package episodes

import (
	"github.com/sqlgym/sqlgym/schemas"
)

// Info is the result of server.info; limits are filled in by the caller
// that knows them.
func (m *Manager) Info(limits schemas.Limits) *schemas.ServerInfo {
	info := &schemas.ServerInfo{
		Name: "sqlgym", Version: m.cfg.Version, Protocol: schemas.Protocol,
		Tools: m.cfg.Tools.Definitions(), Reward: m.cfg.Reward, Limits: limits, Stats: m.metrics.snapshot(),
		PromptStyle: m.cfg.PromptStyle,
	}
	info.Limits.MaxTurns = m.cfg.MaxTurns
	info.Limits.MaxEpisodes = m.cfg.MaxEpisodes
	info.Limits.IdleTimeoutS = m.cfg.IdleTimeout.Seconds()
	info.Limits.MaxTagsBytes = m.cfg.MaxTagsBytes
	info.Limits.MaxCallsPerTurn = m.cfg.MaxCallsPerTurn
	for _, name := range m.names {
		ds := m.datasets[name]
		info.Datasets = append(info.Datasets, schemas.DatasetInfo{Name: ds.Name, Tasks: len(ds.Tasks), Dialect: string(ds.Dialect),
			PromptStyle: m.cfg.DatasetPromptStyles[ds.Name]})
	}
	return info
}

// maxListLimit bounds one tasks.list page.
const maxListLimit = 10000

// ListTasks is the result of tasks.list: a page of one dataset's tasks, or
// of every dataset's in name order when no dataset is named.
func (m *Manager) ListTasks(p schemas.TasksListParams) (*schemas.TasksListResult, error) {
	if p.Offset < 0 || p.Limit < 0 || p.Limit > maxListLimit {
		return nil, errorf(InvalidArgument,
			"offset must be >= 0 and limit between 0 and %d (0 means 100)", maxListLimit)
	}
	if p.Limit == 0 {
		p.Limit = 100
	}
	names := m.names
	if p.Dataset != "" {
		ds, err := m.dataset(p.Dataset)
		if err != nil {
			return nil, err
		}
		names = []string{ds.Name}
	}
	res := &schemas.TasksListResult{Tasks: []schemas.TaskSummary{}}
	for _, name := range names {
		for i := range m.datasets[name].Tasks {
			if res.Total >= p.Offset && len(res.Tasks) < p.Limit {
				res.Tasks = append(res.Tasks, m.datasets[name].Tasks[i].Summary())
			}
			res.Total++
		}
	}
	return res, nil
}
