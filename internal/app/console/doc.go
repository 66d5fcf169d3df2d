// Package console is the web console under /ui: the list of recorded
// episodes with filters, each episode turn by turn beside its gold, and
// run reports as charts. Every page is rendered on the server by
// html/template from recorded data, which is hostile input: every text is
// escaped, the pages carry no script, and a strict Content-Security-Policy
// forbids any the data might smuggle in. With a token the pages sit behind
// a login form that sets an HttpOnly, SameSite=Strict session cookie (the
// token itself never travels in a URL); without one they answer only
// loopback names and pages, as the RPC does.
package console
