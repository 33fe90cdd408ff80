package azure

import (
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// Capabilities declares what a deployment can do: the openai adapter's
// table for the model it serves (the "model" option, else the deployment
// name) on its dialect — thinking only for reasoning models on
// Responses. Azure serves the same models with the same features;
// deployments of models the table does not know get its conservative
// text-and-tools declaration, which models.yaml may widen.
func (p *provider) Capabilities(m driver.Model) canonical.Capabilities {
	return openai.Capabilities(p.modelName(m), p.opts.For(m.ID).Dialect == dialectResponses)
}
