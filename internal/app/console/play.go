package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// TagOrigin is the tag every episode played on the console carries, with
// the value OriginConsole.
const (
	TagOrigin     = "origin"
	OriginConsole = "console"
	playPageSize  = 50
)

// defaultTools are protocol v1's tools, which an episode offers when its
// record names none.
var defaultTools = []string{"inspect_schema", "execute_sql", "submit"}

// Player runs the episodes a person plays on the console.
type Player interface {
	Tasks(params schemas.TasksListParams) (*schemas.TasksListResult, error)
	Reset(ctx context.Context, params schemas.ResetParams) (*schemas.ResetResult, error)
	Step(ctx context.Context, id string, a schemas.Action) (*schemas.StepResult, error)
	Episode(id string) (*schemas.Trajectory, error)
}

// tasksView is the page that picks a task to play.
type tasksView struct {
	frame
	Dataset    string
	Tasks      *schemas.TasksListResult
	Error      string
	Prev, Next string
}

func (c *Console) playTasks(w http.ResponseWriter, r *http.Request) {
	v := tasksView{frame: frame{Title: "Play"}, Dataset: r.URL.Query().Get("dataset")}
	if c.cfg.Player == nil {
		c.fail(w, http.StatusNotFound, "This console has no episode server to play on: sqlgym console reads a log only.")
		return
	}
	page := 1
	if s := r.URL.Query().Get("page"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 {
			page = n
		}
	}
	res, err := c.cfg.Player.Tasks(schemas.TasksListParams{Dataset: v.Dataset, Offset: (page - 1) * playPageSize, Limit: playPageSize})
	if err != nil {
		v.Error = err.Error()
		c.render(w, http.StatusBadRequest, "tasks", v)
		return
	}
	v.Tasks = res
	link := func(n int) string {
		return Prefix + "/play?" + url.Values{"dataset": {v.Dataset}, "page": {strconv.Itoa(n)}}.Encode()
	}
	if page > 1 {
		v.Prev = link(page - 1)
	}
	if page*playPageSize < res.Total {
		v.Next = link(page + 1)
	}
	c.render(w, http.StatusOK, "tasks", v)
}

// playStart starts an episode of the task posted, tagged as played on
// the console, and sends the browser to its page.
func (c *Console) playStart(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Player == nil {
		c.fail(w, http.StatusNotFound, "This console has no episode server to play on.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	tags, _ := json.Marshal(map[string]string{TagOrigin: OriginConsole})
	res, err := c.cfg.Player.Reset(r.Context(), schemas.ResetParams{TaskID: strings.TrimSpace(r.PostFormValue("task_id")),
		Dataset: strings.TrimSpace(r.PostFormValue("dataset")), Tags: tags})
	if err != nil {
		c.fail(w, http.StatusBadRequest, "The episode could not start: "+err.Error())
		return
	}
	http.Redirect(w, r, Prefix+"/play/"+url.PathEscape(res.EpisodeID), http.StatusSeeOther)
}

// playView is the page of an episode being played.
type playView struct {
	frame
	T     *schemas.Trajectory
	Turns []turnView
	Tools []string
	Ended bool
	Error string
	SQL   string // what was typed, kept after an error
}

func (c *Console) playEpisode(w http.ResponseWriter, r *http.Request) {
	c.renderPlay(w, r.PathValue("id"), http.StatusOK, "", "")
}

func (c *Console) renderPlay(w http.ResponseWriter, id string, code int, msg, sql string) {
	if c.cfg.Player == nil {
		c.fail(w, http.StatusNotFound, "This console has no episode server to play on.")
		return
	}
	t, err := c.playedHere(id)
	if err != nil {
		c.fail(w, http.StatusNotFound, fmt.Sprintf("No live episode %q played on the console: %v. A recorded one is at %s/episodes/%s.",
			id, err, Prefix, url.PathEscape(id)))
		return
	}
	v := playView{frame: frame{Title: "Play " + id}, T: t, Tools: t.Tools, Ended: t.Outcome != "", Error: msg, SQL: sql}
	if len(v.Tools) == 0 {
		v.Tools = defaultTools
	}
	for _, st := range t.Steps {
		v.Turns = append(v.Turns, turnOf(st))
	}
	c.render(w, code, "play", v)
}

// playedHere is the live episode of that id when it was started on the
// console (tagged origin=console): the console shows and steps no other,
// so that a person's turns never join an episode a model or another
// client is playing, and are never recorded as theirs.
func (c *Console) playedHere(id string) (*schemas.Trajectory, error) {
	t, err := c.cfg.Player.Episode(id)
	if err != nil {
		return nil, err
	}
	var tags map[string]json.RawMessage
	json.Unmarshal(t.Tags, &tags)
	if want, _ := json.Marshal(OriginConsole); string(tags[TagOrigin]) != string(want) {
		return nil, fmt.Errorf("it was started elsewhere (its tags hold no %s=%s), and the console plays only its own", TagOrigin, OriginConsole)
	}
	return t, nil
}

// playStep runs the call the form posted: a tool and its SQL, or its
// arguments as JSON.
func (c *Console) playStep(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if c.cfg.Player == nil {
		c.fail(w, http.StatusNotFound, "This console has no episode server to play on.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	sql := r.PostFormValue("sql")
	if _, err := c.playedHere(id); err != nil {
		c.renderPlay(w, id, http.StatusNotFound, "", sql)
		return
	}
	a, err := actionOf(r.PostFormValue("tool"), sql, r.PostFormValue("arguments"))
	if err == nil {
		_, err = c.cfg.Player.Step(r.Context(), id, a)
	}
	if err != nil {
		c.renderPlay(w, id, http.StatusBadRequest, err.Error(), sql)
		return
	}
	http.Redirect(w, r, Prefix+"/play/"+url.PathEscape(id), http.StatusSeeOther)
}

// actionOf is the call a form describes: arguments given as JSON win
// over the SQL field.
func actionOf(tool, sql, args string) (schemas.Action, error) {
	tool = strings.TrimSpace(tool)
	if tool == "" {
		return schemas.Action{}, errors.New("pick a tool")
	}
	if args = strings.TrimSpace(args); args != "" {
		if !json.Valid([]byte(args)) || !strings.HasPrefix(args, "{") {
			return schemas.Action{}, fmt.Errorf("arguments %q: want a JSON object, such as {\"sql\": \"SELECT 1\"}", args)
		}
		return schemas.Action{Tool: tool, Arguments: json.RawMessage(args)}, nil
	}
	if strings.TrimSpace(sql) == "" {
		return schemas.Action{Tool: tool}, nil
	}
	b, _ := json.Marshal(map[string]string{"sql": sql})
	return schemas.Action{Tool: tool, Arguments: b}, nil
}
