package azure

import (
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// DecodeBody decodes a non-streamed answer with the call's dialect:
// prompt_filter_results, content_filter_results and content_filters are
// not canonical and stay in the raw body.
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return c.State.(openai.Dialect).DecodeBody(body, a)
}

// Finish estimates the usage of an answer that reported none
// (driver.Finisher), as the openai adapter does: a body with usage null
// or absent, or a stream that ended without its usage chunk (Azure's
// deployments before stream_options, a cancel), gets openai.EstimateUsage's
// counts, flagged Estimated, with a WARN (000 §7.2), never a silent zero.
func (p *provider) Finish(c *driver.Call, a *driver.Assembler, resp *canonical.Response) error {
	if !a.UsageReported() {
		openai.EstimateUsage(c, openai.Estimator, resp)
	}
	return nil
}

var _ driver.Finisher = (*provider)(nil)
