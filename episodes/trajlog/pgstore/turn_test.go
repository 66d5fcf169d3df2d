package pgstore_test

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/schemas"
)

// messageTurn makes st a turn of an assistant message of two calls, with
// everything a step records beside protocol v1's fields: the text beside
// the calls, each call and its tool message, the finish reason and the
// usage.
func messageTurn(st *schemas.StepRecord) {
	text, why := "I will look first.", "the loans table"
	st.Action = schemas.Action{Message: &schemas.AssistantMessage{Role: "assistant", Content: &text, ReasoningContent: &why,
		ToolCalls: []schemas.ToolCall{
			{ID: "call_a", Type: "function", Function: schemas.FunctionCall{Name: "inspect_schema", Arguments: json.RawMessage(`"{\"table\": \"loans\"}"`)}},
			{Type: "function", Function: schemas.FunctionCall{Name: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`)}}}}}
	st.Content, st.FinishReason = &text, "tool_calls"
	st.Usage = &schemas.Usage{CompletionTokens: 40, PromptTokens: 900}
	st.Calls = []schemas.CallRecord{
		{ID: "call_a", Tool: "inspect_schema", Arguments: json.RawMessage(`{"table":"loans"}`), Observation: "loans(...)",
			RewardComponents: map[string]float64{"turn.ok": 0}, ElapsedMS: 0.5},
		{ID: "call_1_1", Tool: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`), Observation: st.Observation,
			Error: st.Error, ResultMeta: st.ResultMeta, RewardComponents: map[string]float64{"turn.ok": 0}, ElapsedMS: 1},
	}
}
