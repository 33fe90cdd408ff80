package ollama

import "github.com/metis-llm/metis/adapters/openaicompat"

// Estimator is the token-estimate tuning of Ollama's native API: the
// same as its OpenAI-compatible endpoint's (adapters/openaicompat), since
// both render the messages through the model's chat template on the
// server, hidden Llama 3 system header included.
var Estimator = openaicompat.Estimator
