package console

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// episodeView is what the episode page shows.
type episodeView struct {
	frame
	R         *trajlog.Record
	Tags      []string
	Turns     []turnView
	Close     []component // the close components, when the episode ended without a step
	Submitted []span      // the last submitted SQL, highlighted
	Gold      *Comparison
	GoldSQL   []span
	GoldNote  string // why no gold is shown
}

// turnView is one turn as the model saw it.
type turnView struct {
	Turn       int
	Text       string // the model's text beside its calls
	Reasoning  string
	Calls      []callView
	Reward     float64
	Components []component
	Outcome    string
	ElapsedMS  float64
}

// callView is one call of a turn and what it got.
type callView struct {
	Tool        string
	SQL         []span // the sql argument, pretty-printed
	Args        string // the arguments as sent, when not only sql
	Observation string
	Error       *schemas.ToolError
	Meta        *schemas.ResultMeta
}

// component is one reward component paid.
type component struct {
	Name  string
	Value float64
}

func (c *Console) episodePage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	rec, err := c.cfg.Store.Episode(ctx, id)
	if errors.Is(err, ErrNotFound) {
		c.fail(w, http.StatusNotFound, fmt.Sprintf("No recorded episode has the id %q.", id))
		return
	}
	if err != nil {
		c.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	v := episodeView{frame: frame{Title: "Episode " + rec.EpisodeID}, R: rec, Tags: tagList(rec.Tags), Close: components(rec.CloseComponents)}
	for _, st := range rec.Steps {
		v.Turns = append(v.Turns, turnOf(st))
	}
	sql := lastSubmitted(rec)
	v.Submitted = prettySQL(sql)
	switch {
	case c.cfg.Golds == nil:
		v.GoldNote = "No dataset is loaded beside this log: start the console with --dataset to see the gold and its result."
	default:
		cmp, err := c.cfg.Golds.Compare(ctx, &rec.Trajectory, sql)
		if err != nil {
			v.GoldNote = err.Error()
		} else {
			v.Gold, v.GoldSQL = cmp, prettySQL(cmp.GoldSQL)
		}
	}
	c.render(w, http.StatusOK, "episode", v)
}

func turnOf(st schemas.StepRecord) turnView {
	t := turnView{Turn: st.Turn, Reward: st.Reward, Components: components(st.RewardComponents),
		Outcome: st.Outcome, ElapsedMS: st.ElapsedMS}
	switch {
	case st.Content != nil:
		t.Text = *st.Content
	case st.Action.Text != nil:
		t.Text = *st.Action.Text
	}
	if m := st.Action.Message; m != nil && m.ReasoningContent != nil {
		t.Reasoning = *m.ReasoningContent
	}
	for _, call := range st.CallList() {
		cv := callView{Tool: call.Tool, Observation: call.Observation, Error: call.Error, Meta: call.ResultMeta}
		if sql := sqlOf(call.Arguments); sql != "" {
			cv.SQL = prettySQL(sql)
		}
		if len(call.Arguments) > 0 && (cv.SQL == nil || !onlySQL(call.Arguments)) {
			cv.Args = string(call.Arguments)
		}
		t.Calls = append(t.Calls, cv)
	}
	return t
}

// onlySQL reports whether a call's arguments are {"sql": ...} alone.
func onlySQL(args []byte) bool {
	return strings.Count(string(args), "\":") == 1
}

// lastSubmitted is the SQL of the episode's last submit call, else of
// its last call that carried SQL.
func lastSubmitted(r *trajlog.Record) string {
	var submitted, ran string
	for _, st := range r.Steps {
		for _, c := range st.CallList() {
			switch s := sqlOf(c.Arguments); {
			case s == "":
			case c.Tool == "submit":
				submitted = s
			default:
				ran = s
			}
		}
	}
	if submitted != "" {
		return submitted
	}
	return ran
}

func components(m map[string]float64) []component {
	var out []component
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, component{k, m[k]})
	}
	return out
}
