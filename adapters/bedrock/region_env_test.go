package bedrock

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
)

// Without a region option the region comes from AWS_REGION, then
// AWS_DEFAULT_REGION, as in the AWS SDKs; the option wins over both (the
// class of crewAIInc/crewAI#4582: AWS_REGION ignored, every call sent to
// another region; plant 18-bedrock-aws-region-ignored).
func TestRegionFromTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name, option string
		env          map[string]string
		want         string
	}{
		{"AWS_REGION", "", map[string]string{"AWS_REGION": "eu-central-1"}, "eu-central-1"},
		{"AWS_DEFAULT_REGION", "", map[string]string{"AWS_DEFAULT_REGION": "ap-south-1"}, "ap-south-1"},
		{"AWS_REGION first", "", map[string]string{"AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": "ap-south-1"}, "eu-central-1"},
		{"the option first", "sa-east-1", map[string]string{"AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": "ap-south-1"}, "sa-east-1"},
	} {
		env := map[string]string{EnvAccessKeyID: testAccessKeyID, EnvSecretAccessKey: testSecret}
		for k, v := range tc.env {
			env[k] = v
		}
		cfg := &adapters.Config{Name: "bedrock", Getenv: func(k string) string { return env[k] }}
		a, err := NewAccess(cfg, tc.option, nil)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, a.Region, tc.name)
		assert.Equal(t, "https://bedrock-runtime."+tc.want+".amazonaws.com", a.Base, tc.name)
	}
}
