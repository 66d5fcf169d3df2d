package evaluate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// shopTasks cover every outcome a judge gives, each with the prediction
// TestEvaluate pairs it with.
var shopTasks = []struct {
	task testTask
	pred string
}{
	{testTask{ID: "count", DBID: "shop", Difficulty: "easy", GoldSQL: "SELECT count(*) FROM item"}, "SELECT count(*) FROM item"},
	{testTask{ID: "dear", DBID: "shop", Difficulty: "easy", GoldSQL: "SELECT name FROM item WHERE price > 1.8"}, "SELECT name FROM item"},
	{testTask{ID: "order", DBID: "shop", Difficulty: "hard", GoldSQL: "SELECT name FROM item ORDER BY price"}, ""},
	{testTask{ID: "broken", DBID: "shop", Difficulty: "hard", GoldSQL: "SELECT nope FROM item"}, "SELECT 1"},
	{testTask{ID: "none", DBID: "shop", Difficulty: "medium", GoldSQL: "SELECT name FROM item WHERE 0"}, "SELECT name FROM item WHERE price > 100"},
	{testTask{ID: "rows", DBID: "shop", Difficulty: "medium", GoldAnswer: [][]any{{3}}}, "SELECT count(*) FROM item"},
	{testTask{ID: "slow", DBID: "shop", Difficulty: "medium", GoldSQL: "SELECT 1"}, forever},
}

// shopItems builds the dataset of shopTasks and pairs it with their
// predictions.
func shopItems(t *testing.T) (*env.Dataset, []Item, Config) {
	t.Helper()
	var tasks []testTask
	var preds []Prediction
	for i, st := range shopTasks {
		tasks = append(tasks, st.task)
		preds = append(preds, Prediction{SQL: st.pred, Pos: "line " + strconv.Itoa(i+1)})
	}
	ds := buildDataset(t, tasks...)
	items, err := Align(ds, preds)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Catalog: newCatalog(t), Spec: schemas.DefaultRewardSpec(), Workers: 3,
		Judge: judge.New(judge.Config{PredTimeout: 200 * time.Millisecond}),
	}
	return ds, items, cfg
}

func TestEvaluate(t *testing.T) {
	ds, items, cfg := shopItems(t)
	var calls []int
	cfg.Progress = func(done, total int) {
		if total != len(items) {
			t.Errorf("progress total = %d, want %d", total, len(items))
		}
		calls = append(calls, done)
	}
	recs, err := Evaluate(context.Background(), ds, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		outcome string
		reward  float64
		errText string
		empty   bool
	}{
		{schemas.OutcomeCorrect, 1, "", false},
		{schemas.OutcomeMismatch, 0.1, "", false},
		{schemas.OutcomePredError, -0.1, "empty statement", false},
		{schemas.OutcomeGoldError, 0, "gold: no such column: nope", false},
		{schemas.OutcomeCorrect, 1, "", true},
		{schemas.OutcomeCorrect, 1, "", false},
		{schemas.OutcomePredTimeout, -0.1, "", false},
	}
	if len(recs) != len(want) {
		t.Fatalf("got %d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		if r.Index != i || r.TaskID != "shop/"+shopTasks[i].task.ID || r.DBID != "shop" || r.Difficulty != shopTasks[i].task.Difficulty {
			t.Errorf("record %d names %d %s %s %s", i, r.Index, r.TaskID, r.DBID, r.Difficulty)
		}
		if r.Outcome != w.outcome || r.Correct != (w.outcome == schemas.OutcomeCorrect) || r.Reward != w.reward || r.GoldEmpty != w.empty {
			t.Errorf("record %d (%s) = %s correct=%v reward=%v empty=%v, want %s reward=%v empty=%v",
				i, r.TaskID, r.Outcome, r.Correct, r.Reward, r.GoldEmpty, w.outcome, w.reward, w.empty)
		}
		if !strings.Contains(r.Error, w.errText) || (w.errText == "" && r.Error != "" && r.Outcome != schemas.OutcomePredTimeout) {
			t.Errorf("record %d error = %q, want %q", i, r.Error, w.errText)
		}
	}
	if recs[0].PredMS <= 0 || recs[0].GoldMS <= 0 || recs[5].GoldMS != 0 || recs[2].PredMS != 0 {
		t.Errorf("times: ran %v/%v ms, gold as rows %v ms, failed prediction %v ms", recs[0].PredMS, recs[0].GoldMS, recs[5].GoldMS, recs[2].PredMS)
	}
	if wantCalls := []int{1, 2, 3, 4, 5, 6, 7}; !slices.Equal(calls, wantCalls) {
		t.Errorf("progress calls = %v, want %v", calls, wantCalls)
	}
}

func TestEvaluateMatchModes(t *testing.T) {
	ds := buildDataset(t, testTask{ID: "swap", DBID: "shop", GoldSQL: "SELECT id, name FROM item"})
	items, err := Align(ds, []Prediction{{SQL: "SELECT name, id FROM item"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ match, want string }{
		{schemas.MatchBird, schemas.OutcomeMismatch},
		{schemas.MatchSpider, schemas.OutcomeCorrect},
		{schemas.MatchTolerant, schemas.OutcomeCorrect},
	} {
		spec := schemas.DefaultRewardSpec()
		spec.Match = tt.match
		recs, err := Evaluate(context.Background(), ds, items, Config{Catalog: newCatalog(t), Judge: judge.New(judge.Config{}), Spec: spec})
		if err != nil {
			t.Fatal(err)
		}
		if recs[0].Outcome != tt.want {
			t.Errorf("%s: columns swapped scored %s, want %s", tt.match, recs[0].Outcome, tt.want)
		}
	}
}

func TestEvaluateFaults(t *testing.T) {
	ds, items, cfg := shopItems(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Evaluate(ctx, ds, items, cfg); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error = %v, want context.Canceled", err)
	}
	if _, err := Evaluate(context.Background(), ds, items, Config{Catalog: cfg.Catalog}); err == nil {
		t.Error("no judge: no error")
	}
	other := buildDataset(t, testTask{ID: "x", DBID: "shop", GoldSQL: "SELECT 1"})
	other.DBs["shop"] = filepath.Join(t.TempDir(), "gone.sqlite")
	oitems, err := Align(other, []Prediction{{SQL: "SELECT 1"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Evaluate(context.Background(), other, oitems, cfg)
	if err == nil || !strings.Contains(err.Error(), "evaluate shop/x") {
		t.Errorf("missing database: error = %v, want one naming the task", err)
	}
}

func TestSummarize(t *testing.T) {
	ds, items, cfg := shopItems(t)
	recs, err := Evaluate(context.Background(), ds, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(recs)
	if got, want := s.Overall, (Group{Name: "all", Correct: 3, Total: 7}); got != want {
		t.Errorf("overall = %+v, want %+v", got, want)
	}
	wantDiff := []Group{{Name: "easy", Correct: 1, Total: 2}, {Name: "medium", Correct: 2, Total: 3}, {Name: "hard", Correct: 0, Total: 2}}
	if !reflect.DeepEqual(s.ByDifficulty, wantDiff) {
		t.Errorf("by difficulty = %+v, want %+v", s.ByDifficulty, wantDiff)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `EX 0.429 (3/7)

difficulty  EX     correct  total
easy        0.500  1        2
medium      0.667  2        3
hard        0.000  0        2

database  EX     correct  total
shop      0.429  3        7

outcome       count  share
correct       3      0.429
mismatch      1      0.143
pred_error    1      0.143
pred_timeout  1      0.143
gold_error    1      0.143
gold_timeout  0      0.000

correct on an empty gold  1
correct reading no table  0
mean final reward         0.4143

not correct: 4 of 7
prediction  task         outcome
line 2      shop/dear    mismatch
line 3      shop/order   pred_error
line 4      shop/broken  gold_error
line 7      shop/slow    pred_timeout
`
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestEvaluateNoTableRead: a constant answer that matches keeps its
// official EX verdict, and the summary counts it.
func TestEvaluateNoTableRead(t *testing.T) {
	ds, _, cfg := shopItems(t)
	task := ds.Tasks[0] // SELECT count(*) FROM item: 3
	items := []Item{{Task: &task, Prediction: Prediction{SQL: "SELECT 3"}}, {Task: &task, Prediction: Prediction{SQL: task.GoldSQL}}}
	recs, err := Evaluate(context.Background(), ds, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !recs[0].Correct || !recs[0].NoTableRead || recs[1].NoTableRead {
		t.Errorf("records %+v; want the constant answer correct and flagged, the gold not flagged", recs)
	}
	if s := Summarize(recs); s.CorrectNoTableRead != 1 || s.Overall.Correct != 2 {
		t.Errorf("summary: %d correct reading no table, %d correct; want 1, 2", s.CorrectNoTableRead, s.Overall.Correct)
	}
}

func TestSummarizeGroups(t *testing.T) {
	recs := []Record{
		{DBID: "b", Difficulty: "challenging", Correct: true, Outcome: "correct"},
		{DBID: "a", Difficulty: "simple", Outcome: "mismatch"},
		{DBID: "a", Difficulty: "odd", Outcome: "mismatch"},
		{DBID: "a", Outcome: "mismatch"},
		{DBID: "c", Difficulty: "moderate", Correct: true, Outcome: "correct"},
	}
	s := Summarize(recs)
	var names []string
	for _, g := range s.ByDifficulty {
		names = append(names, g.Name)
	}
	if want := []string{"simple", "moderate", "challenging", "-", "odd"}; !slices.Equal(names, want) {
		t.Errorf("difficulty order = %v, want %v", names, want)
	}
	names = names[:0]
	for _, g := range s.ByDB {
		names = append(names, g.Name)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(names, want) {
		t.Errorf("database order = %v, want %v", names, want)
	}
	none := Summarize([]Record{{DBID: "a", Outcome: "correct", Correct: true}})
	var b bytes.Buffer
	none.WriteText(&b)
	if none.ByDifficulty != nil || !strings.Contains(b.String(), "(no difficulty given by the dataset)") {
		t.Errorf("no difficulty: groups %v, text:\n%s", none.ByDifficulty, b.String())
	}
	if e := Summarize(nil); e.Overall.EX() != 0 || e.MeanReward != 0 {
		t.Errorf("no records: EX %v, mean reward %v", e.Overall.EX(), e.MeanReward)
	}
}

func TestRecordsFile(t *testing.T) {
	recs := []Record{
		{Index: 0, TaskID: "d/0", DBID: "a", Difficulty: "easy", Outcome: "correct", Correct: true, Reward: 1, PredMS: 1.25, GoldMS: 0.5},
		{Index: 1, TaskID: "d/1", DBID: "a", Outcome: "gold_error", Error: "gold: no such table: x"},
	}
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := WriteRecordsFile(path, recs); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantText := `{"index":0,"task_id":"d/0","db_id":"a","difficulty":"easy","outcome":"correct","correct":true,"reward":1,"pred_ms":1.25,"gold_ms":0.5}
{"index":1,"task_id":"d/1","db_id":"a","outcome":"gold_error","correct":false,"reward":0,"pred_ms":0,"gold_ms":0,"error":"gold: no such table: x"}
`
	if string(data) != wantText {
		t.Errorf("file:\n%s\nwant:\n%s", data, wantText)
	}
	got, err := ReadRecords(bytes.NewReader(data))
	if err != nil || !reflect.DeepEqual(got, recs) {
		t.Errorf("ReadRecords = %+v, %v; want %+v", got, err, recs)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only the output (no temporary left)", len(entries))
	}
	if err := WriteRecordsFile(filepath.Join(t.TempDir(), "no", "such", "dir.jsonl"), recs); err == nil {
		t.Error("write into a missing folder: no error")
	}
	if _, err := ReadRecords(strings.NewReader(`{"index":0,"surprise":1}`)); err == nil {
		t.Error("unknown field: no error")
	}
}
