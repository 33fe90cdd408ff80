package azure

// The token estimate is the openai adapter's (Info uses openai.Estimator):
// Azure serves OpenAI's models with their tokenizers and framing.
