// Package rollout runs a model through sqlgym episodes: it asks any
// OpenAI-compatible chat endpoint (POST <base>/chat/completions) for each
// turn, hands the reply to an episode as an action (the whole assistant
// message with its calls, or the whole text), and sends the observations
// back, until the episode ends.
// Episodes run through the episode server's own code (an in-process
// episodes.Manager, or a server reached with episodes/client) and are
// recorded in its trajectory store, tagged {run, model, sample}.
//
// The Runner plays K samples of each task on a bounded number of
// goroutines, skips the samples a run already recorded (resume), retries
// the model's requests on 429, 5xx and broken connections with backoff,
// and on cancellation closes the episodes in flight so that every step the
// server acknowledged is recorded. Teacher mode adds privileged hints to
// the system prompt the model sees, never to the recorded prompt.
package rollout
