package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/sqlgym/sqlgym/schemas"
)

// listView is what the list page shows.
type listView struct {
	frame
	Form     url.Values // the filters as asked, to fill the form again
	Error    string
	Page     *Page
	From, To int    // the rows shown, from 1
	PageNo   int    // the page shown, from 1
	Prev     string // the previous page's link, "" on the first
	Next     string // the next page's link, "" on the last
	Outcomes []string
}

func (c *Console) listPage(w http.ResponseWriter, r *http.Request) {
	v := listView{frame: frame{Title: "Episodes"}, Form: r.URL.Query(), Outcomes: schemas.Outcomes()}
	q, err := parseQuery(r.URL.Query(), c.cfg.MaxOffset)
	if err != nil {
		v.Error = err.Error()
		c.render(w, http.StatusBadRequest, "list", v)
		return
	}
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	page, err := c.cfg.Store.List(ctx, q)
	if err != nil {
		c.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	v.Page = page
	v.PageNo = q.Offset/q.Limit + 1
	v.From, v.To = q.Offset+1, q.Offset+len(page.Episodes)
	if v.PageNo > 1 {
		v.Prev = pageLink(r.URL.Query(), v.PageNo-1)
	}
	if v.To < page.Total {
		v.Next = pageLink(r.URL.Query(), v.PageNo+1)
	}
	c.render(w, http.StatusOK, "list", v)
}

// pageLink is the list's link to page n under the same filters.
func pageLink(v url.Values, n int) string {
	v.Set("page", strconv.Itoa(n))
	return Prefix + "/episodes?" + v.Encode()
}
