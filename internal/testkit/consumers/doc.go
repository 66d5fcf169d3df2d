// Package consumers replicates, for tests, how the tools that read
// sqlgym's training files load and render them: Hugging Face datasets'
// JSON loading (LoadJSONLines), OpenAI's fine-tuning chat format, TRL's
// SFTTrainer and DPOTrainer, LLaMA-Factory's sharegpt converter and
// function formatter, and the chat templates TRL ships (Templates). Each
// rule names the source file and line it comes from, at the commit given
// in the file that holds it, so that a test that passes a file through
// these functions shows the consumer would read and render it as meant.
// It imports only the standard library.
package consumers
