package postgres

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// portal is one statement running through the extended protocol: Parse,
// Bind and Describe of the unnamed statement and portal, then Execute in
// batches. The server parses one statement only, so a text that holds
// two fails here whatever the sandbox's own count said.
type portal struct {
	c       *conn
	sink    rowSink
	columns []string
	oids    []uint32
	batch   uint32
	stopped bool  // the sink has what it wants; later rows are dropped
	err     error // the first failure, the server's or the collector's
	synced  bool  // Sync sent: only ReadyForQuery is left to read
}

// rowSink takes a statement's rows: a sandbox.Collector keeps them
// within the limits, QueryEach's hands them on.
type rowSink interface {
	// Add offers one row; false asks for no more.
	Add(values []any) (more bool, err error)
}

// run executes stmt with params (for $1, $2, ...: nil is NULL, anything
// else is sent as its text) and reads
// its rows within lim. Rows come in batches of at most fetchBatch, and no
// more are asked for once the collector stops: a statement of a billion
// rows costs one batch past the cap.
func (c *conn) run(stmt string, params []any, lim limits) (*env.ResultSet, error) {
	coll := sandbox.NewCollector(nil, lim.Limits, lim.ceil)
	p, err := c.execute(stmt, params, coll, min(coll.Want(), fetchBatch))
	if err != nil {
		return nil, err
	}
	rs := coll.Result()
	rs.Columns = p.columns
	return rs, nil
}

// execute runs stmt with params and hands its rows to sink, asking for
// batch rows at a time, until the sink stops or the rows end.
func (c *conn) execute(stmt string, params []any, sink rowSink, batch int) (*portal, error) {
	p := &portal{c: c, sink: sink, batch: uint32(batch)}
	values := make([][]byte, len(params))
	for i, v := range params {
		if v != nil {
			values[i] = []byte(fmt.Sprint(v)) // never nil: "" is not NULL
		}
	}
	fe := c.pc.Frontend()
	fe.Send(&pgproto3.Parse{Query: stmt})
	fe.Send(&pgproto3.Bind{Parameters: values})
	fe.Send(&pgproto3.Describe{ObjectType: 'P'})
	fe.Send(&pgproto3.Execute{MaxRows: p.batch})
	fe.Send(&pgproto3.Flush{})
	if err := fe.Flush(); err != nil {
		return nil, err
	}
	if err := p.read(); err != nil {
		return nil, err
	}
	if p.err != nil {
		return nil, p.err
	}
	return p, nil
}

// read handles the server's messages up to ReadyForQuery. An error
// returned is the connection's (it is then unusable); a failure of the
// statement is kept in p.err.
func (p *portal) read() error {
	for {
		msg, err := p.c.pc.ReceiveMessage(p.c.ctx)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			p.describe(m)
		case *pgproto3.DataRow:
			p.row(m)
		case *pgproto3.PortalSuspended:
			if p.stopped {
				err = p.sync()
			} else {
				err = p.more()
			}
		case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse:
			err = p.sync()
		case *pgproto3.ErrorResponse:
			p.fail(pgconn.ErrorResponseToPgError(m))
			err = p.sync()
		case *pgproto3.ReadyForQuery:
			if p.synced {
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
}

// describe takes the columns' names and types.
func (p *portal) describe(m *pgproto3.RowDescription) {
	p.columns = make([]string, len(m.Fields))
	p.oids = make([]uint32, len(m.Fields))
	for i, f := range m.Fields {
		p.columns[i], p.oids[i] = string(f.Name), f.DataTypeOID
	}
}

// row offers one row to the sink, unless it stopped.
func (p *portal) row(m *pgproto3.DataRow) {
	if p.stopped {
		return
	}
	vals, err := decodeRow(m.Values, p.oids)
	if err != nil {
		p.fail(err)
		return
	}
	more, err := p.sink.Add(vals)
	switch {
	case err != nil:
		p.fail(err)
	case !more:
		p.stopped = true
	}
}

// fail keeps the first failure and stops reading rows.
func (p *portal) fail(err error) {
	if p.err == nil {
		p.err = err
	}
	p.stopped = true
}

// more asks for the next batch. Without a Sync between batches the
// statement stays one statement to the server, so its statement_timeout
// runs across all of them.
func (p *portal) more() error {
	fe := p.c.pc.Frontend()
	fe.Send(&pgproto3.Execute{MaxRows: p.batch})
	fe.Send(&pgproto3.Flush{})
	return fe.Flush()
}

// sync ends the statement; the server answers with ReadyForQuery.
func (p *portal) sync() error {
	if p.synced {
		return nil
	}
	p.synced = true
	fe := p.c.pc.Frontend()
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}
