package console

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// parseQuery reads a list page's filters from its URL, or says which
// parameter is wrong and why.
func parseQuery(v url.Values, maxOffset int) (Query, error) {
	q := Query{Limit: DefaultPageSize, DBID: strings.TrimSpace(v.Get("db")), Text: strings.TrimSpace(v.Get("q"))}
	q.Dataset = strings.TrimSpace(v.Get("dataset"))
	q.TaskID = strings.TrimSpace(v.Get("task"))
	switch o := strings.TrimSpace(v.Get("outcome")); o {
	case "", "any":
	case "failed":
		q.Failed = true
	default:
		q.Outcome = o
	}
	var err error
	if q.MinReward, err = optFloat(v, "min_reward"); err != nil {
		return q, err
	}
	if q.MaxReward, err = optFloat(v, "max_reward"); err != nil {
		return q, err
	}
	if q.Since, err = optTime(v, "since"); err != nil {
		return q, err
	}
	if q.Until, err = optTime(v, "until"); err != nil {
		return q, err
	}
	if err := parseTags(v, &q); err != nil {
		return q, err
	}
	return q, parsePaging(v, &q, maxOffset)
}

// parseTags reads tag=KEY=VALUE parameters, and a tags field of the form
// holding "KEY=VALUE KEY=VALUE".
func parseTags(v url.Values, q *Query) error {
	var kvs []string
	kvs = append(kvs, v["tag"]...)
	kvs = append(kvs, strings.Fields(v.Get("tags"))...)
	for _, kv := range kvs {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("tag %q: want KEY=VALUE (a string value unquoted, any other as its JSON text)", kv)
		}
		if q.Tags == nil {
			q.Tags = map[string]string{}
		}
		q.Tags[k] = val
	}
	return nil
}

func parsePaging(v url.Values, q *Query, maxOffset int) error {
	page := 1
	if s := v.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("page %q: want a whole number from 1", s)
		}
		page = n
	}
	if s := v.Get("per_page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxPageSize {
			return fmt.Errorf("per_page %q: want a whole number from 1 to %d", s, MaxPageSize)
		}
		q.Limit = n
	}
	q.Offset = (page - 1) * q.Limit
	if q.Offset > maxOffset {
		return fmt.Errorf("page %d starts past episode %d, the deepest a list goes: narrow the filters instead", page, maxOffset)
	}
	return nil
}

func optFloat(v url.Values, name string) (*float64, error) {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%s %q: want a number", name, s)
	}
	return &f, nil
}

// timeLayouts are the forms a time filter takes: RFC 3339, a browser's
// datetime-local field, a date.
var timeLayouts = []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"}

func optTime(v url.Values, name string) (time.Time, error) {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s %q: want a time as 2006-01-02, 2006-01-02T15:04 (UTC) or RFC 3339", name, s)
}
