package bedrock

// The token estimate is the Anthropic adapter's (Info uses
// anthropic.Estimator): Bedrock serves Anthropic's models with their
// tokenizer and framing.
