package azure

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The deployment path segment is the deployment name (the model's wire
// name), never the canonical model id: with a deployment named unlike
// its model, a URL built from the id goes to a deployment that does not
// exist (the class of microsoft/autogen#932; plant
// 01-azure-model-for-deployment).
func TestDeploymentPathIsTheDeploymentName(t *testing.T) {
	a := newAdapter(t, "https://r.openai.azure.com", "azure:gpt-4.1-mini", "prod-chat-2", nil,
		map[string]any{"dialect": "chat", "api_version": "2024-10-21", "model": "gpt-4.1-mini"})
	w, err := a.Encode(hello("azure:gpt-4.1-mini"), false)
	require.NoError(t, err)
	assert.Equal(t, "https://r.openai.azure.com/openai/deployments/prod-chat-2/chat/completions?api-version=2024-10-21", w.URL)
}
