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

// text is the reward as the agent reads it.
func (r *Reward) text() string {
	if r.Live {
		return fmt.Sprintf("Episode %s is running: %d of %d turns used, reward so far %g.", r.EpisodeID, r.Turns, r.MaxTurns, r.TotalReward)
	}
	return fmt.Sprintf("Episode %s ended: outcome %s, final reward %g, total reward %g over %d turns.",
		r.EpisodeID, r.Outcome, r.FinalReward, r.TotalReward, r.Turns)
}
