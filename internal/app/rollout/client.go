package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// Defaults of a ChatConfig.
const (
	DefaultAttempts       = 5
	DefaultRequestTimeout = 5 * time.Minute
	DefaultBackoff        = time.Second
	DefaultMaxReplyBytes  = 16 << 20
)

// ChatConfig configures a Chat client. Zero values mean the defaults.
type ChatConfig struct {
	BaseURL     string // OpenAI base URL, such as http://localhost:8000/v1
	Model       string
	APIKey      string // sent as a bearer token when set
	Temperature *float64
	TopP        *float64
	MaxTokens   int

	Attempts       int           // tries per request, at least 3 (DefaultAttempts)
	RequestTimeout time.Duration // bound of one try (DefaultRequestTimeout)
	Backoff        time.Duration // first wait between tries, doubling (DefaultBackoff)
	MaxReplyBytes  int64         // largest reply body read (DefaultMaxReplyBytes)
	HTTP           *http.Client  // nil: a client of its own
}

// Chat asks an OpenAI-compatible endpoint for completions. It is safe for
// concurrent use.
type Chat struct {
	cfg ChatConfig
	url string
}

// NewChat checks cfg and returns a client.
func NewChat(cfg ChatConfig) (*Chat, error) {
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("model url %q: want an http:// or https:// base URL such as http://localhost:8000/v1", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return nil, errors.New("no model name")
	}
	switch {
	case cfg.Attempts == 0:
		cfg.Attempts = DefaultAttempts
	case cfg.Attempts < 3:
		return nil, fmt.Errorf("attempts per request must be at least 3, got %d", cfg.Attempts)
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxReplyBytes <= 0 {
		cfg.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{}
	}
	return &Chat{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions"}, nil
}

// Complete sends the messages (and the tools, when given) and returns the
// first choice's message and the reply's token usage (see Reply).
func (c *Chat) Complete(ctx context.Context, msgs []ChatMessage, tools json.RawMessage) (ChatMessage, Usage, error) {
	choice, usage, err := c.Reply(ctx, msgs, tools)
	return choice.Message, usage, err
}

// Reply sends the messages (and the tools, when given) and returns the
// first choice (its message and finish reason) and the reply's token
// usage. It retries on 429, 5xx, a broken connection and a try that timed
// out, waiting longer each time (or as Retry-After says), up to the
// configured attempts.
func (c *Chat) Reply(ctx context.Context, msgs []ChatMessage, tools json.RawMessage) (Choice, Usage, error) {
	req := ChatRequest{Model: c.cfg.Model, Messages: msgs, Tools: tools, Temperature: c.cfg.Temperature,
		TopP: c.cfg.TopP, MaxTokens: c.cfg.MaxTokens}
	body, err := json.Marshal(req)
	if err != nil {
		return Choice{}, Usage{}, fmt.Errorf("encode request: %w", err)
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.Multiplier, b.MaxInterval = c.cfg.Backoff, 2, 30*c.cfg.Backoff
	resp, err := backoff.Retry(ctx, func() (*ChatResponse, error) { return c.try(ctx, body) },
		backoff.WithBackOff(b), backoff.WithMaxTries(uint(c.cfg.Attempts)), backoff.WithMaxElapsedTime(0))
	if err != nil {
		return Choice{}, Usage{}, fmt.Errorf("model %s at %s: %w", c.cfg.Model, c.url, err)
	}
	if len(resp.Choices) == 0 {
		return Choice{}, resp.Usage, fmt.Errorf("model %s at %s: the reply has no choices", c.cfg.Model, c.url)
	}
	return resp.Choices[0], resp.Usage, nil
}

// try sends the request once. Errors worth another try are returned as
// they are; the others are backoff.Permanent.
func (c *Chat) try(ctx context.Context, body []byte) (*ChatResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, backoff.Permanent(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.cfg.HTTP.Do(hr)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, c.cfg.MaxReplyBytes+1))
	switch {
	case err != nil:
		return nil, c.transportError(ctx, fmt.Errorf("read reply: %w", err))
	case int64(len(data)) > c.cfg.MaxReplyBytes:
		return nil, backoff.Permanent(fmt.Errorf("reply larger than %d bytes", c.cfg.MaxReplyBytes))
	case res.StatusCode != http.StatusOK:
		return nil, statusError(res, data)
	}
	var out ChatResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, backoff.Permanent(fmt.Errorf("reply is not a chat completion: %w: %s", err, excerpt(data)))
	}
	return &out, nil
}

// transportError classifies a failed try: the caller's cancellation is
// final, a timed-out try or a broken connection is worth another.
func (c *Chat) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return backoff.Permanent(err) // the caller gave up
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no reply within %s (the request timeout)", c.cfg.RequestTimeout)
	}
	return err
}

// statusError is the error of a reply that is not 200: 429 and 5xx are
// worth another try (after Retry-After seconds when the reply says so),
// any other status is final.
func statusError(res *http.Response, data []byte) error {
	err := fmt.Errorf("HTTP %d: %s", res.StatusCode, excerpt(data))
	if res.StatusCode != http.StatusTooManyRequests && res.StatusCode < 500 {
		return backoff.Permanent(err)
	}
	if s, perr := strconv.Atoi(res.Header.Get("Retry-After")); perr == nil && s > 0 {
		return errors.Join(err, backoff.RetryAfter(min(s, 120)))
	}
	return err
}

// excerpt is the start of a reply body, for an error message.
func excerpt(b []byte) string {
	const n = 300
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
