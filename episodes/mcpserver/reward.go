package mcpserver

import "fmt"

// Reward is what get_reward answers: the reward of the session's
// episode, so far or final.
type Reward struct {
	EpisodeID string `json:"episode_id"`
	Live      bool   `json:"live"`              // the episode has not ended
	Outcome   string `json:"outcome,omitempty"` // how it ended (correct, mismatch, ...); "" while live
	// FinalReward is the last step's reward (0 while live); TotalReward
	// the sum over its steps.
	FinalReward      float64            `json:"final_reward"`
	TotalReward      float64            `json:"total_reward"`
	Turns            int                `json:"turns"`
	MaxTurns         int                `json:"max_turns"`
	RewardComponents map[string]float64 `json:"reward_components,omitempty"` // each component summed over the steps, once ended
}

// rewardSchema is the JSON Schema of Reward, get_reward's structured
// content (a test holds it to the struct's fields).
const rewardSchema = `{"type":"object","title":"Reward",` +
	`"description":"The reward of an episode: so far while it runs (live), final once it has ended.",` +
	`"properties":{` +
	`"episode_id":{"type":"string"},` +
	`"live":{"type":"boolean","description":"The episode has not ended."},` +
	`"outcome":{"type":"string","description":"How it ended (correct, mismatch, ...); absent while live."},` +
	`"final_reward":{"type":"number","description":"The last step's reward; 0 while live."},` +
	`"total_reward":{"type":"number","description":"The sum of its steps' rewards."},` +
	`"turns":{"type":"integer","minimum":0},` +
	`"max_turns":{"type":"integer","minimum":1},` +
	`"reward_components":{"type":"object","additionalProperties":{"type":"number"},` +
	`"description":"Each component summed over the steps, once ended."}},` +
	`"required":["episode_id","live","final_reward","total_reward","turns","max_turns"],"additionalProperties":false}`

// text is the reward as the agent reads it.
func (r *Reward) text() string {
	if r.Live {
		return fmt.Sprintf("Episode %s is running: %d of %d turns used, reward so far %g.", r.EpisodeID, r.Turns, r.MaxTurns, r.TotalReward)
	}
	return fmt.Sprintf("Episode %s ended: outcome %s, final reward %g, total reward %g over %d turns.",
		r.EpisodeID, r.Outcome, r.FinalReward, r.TotalReward, r.Turns)
}
