// Package consumers replicates, for tests, how the tools that read
// sqlgym's training files load them: OpenAI's fine-tuning chat format,
// TRL's SFTTrainer and DPOTrainer, and LLaMA-Factory's openai-format
// converter. Each rule names the source file and line it comes from, at
// the commit given in the file that holds it, so that a test that
// passes a file through these functions shows the consumer would read
// it as meant. It imports only the standard library.
package consumers
