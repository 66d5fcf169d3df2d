package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// checkTimeout bounds Check's request.
const checkTimeout = 30 * time.Second

// Check asks the endpoint for its models (GET BASE/models) before any
// episode is played, so that a wrong URL, port or key fails the run at
// once instead of recording episodes closed early. An endpoint that
// answers but has no model list (404, 405) passes; one that lists models
// must list the configured one.
func (c *Chat) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	base := strings.TrimSuffix(c.url, "/chat/completions")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return err
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("model endpoint %s does not answer: %w", base, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("model endpoint %s refused the API key (HTTP %d): set the variable --api-key-env names", base, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil // answers, lists no models: the first request will tell
	}
	return c.checkListed(base, resp.Body)
}

// checkListed fails when the body is a model list without the configured
// model, naming those it has.
func (c *Chat) checkListed(base string, body io.Reader) error {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.NewDecoder(io.LimitReader(body, c.cfg.MaxReplyBytes)).Decode(&list) != nil || len(list.Data) == 0 {
		return nil
	}
	ids := make([]string, len(list.Data))
	for i, m := range list.Data {
		ids[i] = m.ID
	}
	if slices.Contains(ids, c.cfg.Model) {
		return nil
	}
	if len(ids) > 10 {
		ids = append(ids[:10], "...")
	}
	return fmt.Errorf("model endpoint %s does not serve model %q; it serves %s", base, c.cfg.Model, strings.Join(ids, ", "))
}
