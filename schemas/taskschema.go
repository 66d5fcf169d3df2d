package schemas

// MethodTasksSchema is tasks.schema, an extension of protocol sqlgym/1:
// the tables and columns of a task's database, for a client's own use
// (a REPL's Tab completion, a tool that shows the schema beside a task).
// It is not a step: it spends no turn, is never recorded and reaches no
// model.
const MethodTasksSchema = "tasks.schema"

// TasksSchemaParams are the params of tasks.schema.
type TasksSchemaParams struct {
	TaskID string `json:"task_id" jsonschema_description:"The task whose database is read, as tasks.list and episode.reset name it."`
}

// TasksSchemaResult is the result of tasks.schema: the tables of the
// task's database, in the order the engine lists them, each with its
// columns in their order.
type TasksSchemaResult struct {
	TaskID  string        `json:"task_id"`
	Dataset string        `json:"dataset"`
	DBID    string        `json:"db_id"`
	Dialect string        `json:"dialect"`
	Tables  []SchemaTable `json:"tables"`
}

// SchemaTable is one table of a database, as tasks.schema lists it.
type SchemaTable struct {
	Name    string         `json:"name"`
	Columns []SchemaColumn `json:"columns"`
}

// SchemaColumn is one column of a table, with its declared type as the
// database spells it ("" when it declares none).
type SchemaColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}
