package openaicompat

import (
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
)

// Estimator is the token-estimate tuning of OpenAI-compatible servers:
// OpenAI's (the servers speak its format; an OpenAI model behind a
// router or a gpt-oss model is counted with its real encoding), plus
// the prompt a model's chat template adds to every request unseen: the
// harmony system message for gpt-oss (OpenAI's), and for the Llama 3.1+
// family the template's default system header ("Cutting Knowledge
// Date: … Today Date: …"), llama3System tokens, calibrated on the
// calibration half of the vendored recordings.
var Estimator = func() driver.Estimator {
	e := openai.Estimator
	inner := e.Hidden
	e.Hidden = func(model string) int {
		if isLlama3(model) {
			return llama3System
		}
		if inner != nil {
			return inner(model)
		}
		return 0
	}
	return e
}()

// llama3System is the Llama 3 chat template's default system header, in
// tokens: the mean shortfall of the estimate on the calibration
// recordings of Llama 3.x models (adapters/providers TestEstimateCalibration
// checks that it still is).
const llama3System = 28

// isLlama3 reports whether a canonical id names a Llama 3.x model.
func isLlama3(model string) bool {
	_, name, _ := strings.Cut(model, ":")
	name = strings.ToLower(name)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return strings.HasPrefix(name, "llama-3") || strings.HasPrefix(name, "llama3") || strings.HasPrefix(name, "meta-llama-3")
}
