package vertex

// The token estimates are the publishers' own adapters': Info uses
// gemini.Estimator and AnthropicInfo anthropic.Estimator, since Vertex AI
// serves the same models with the same tokenizers and framing.
