package check

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"

	iwire "github.com/metis-llm/metis/internal/wire"
)

func TestUnframed(t *testing.T) {
	ev := `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"日本語テキスト"}}`
	body := append(iwire.BedrockChunk([]byte(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(ev))+`","p":"abc"}`)),
		iwire.BedrockException("throttlingException", []byte(`{"message":"slow down"}`))...)
	assert.Equal(t, ev+"\n"+`{"message":"slow down"}`+"\n", string(unframed(body)))
	for _, other := range []string{"data: {\"a\":1}\n\n", `{"id":"msg_1"}`, "event: x\ndata: y\n\n", ""} {
		assert.Equal(t, other, string(unframed([]byte(other))), "not an event stream")
	}
	broken := body[:len(body)-3]
	assert.Equal(t, string(broken), string(unframed(broken)), "a body that does not decode is kept as it is")
}
