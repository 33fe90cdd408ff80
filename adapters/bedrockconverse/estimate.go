package bedrockconverse

import "github.com/metis-llm/metis/adapters/anthropic"

// estimator is the Anthropic adapter's tuning: Claude is the family the
// column and most Converse traffic run, and Converse renders its tools
// and messages for Claude as the Messages API does. Other families'
// tokenizers differ by some tens of percent; the estimate is a bound
// for context checks, not a bill.
var estimator = anthropic.Estimator
