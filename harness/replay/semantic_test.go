package replay_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

// The two requests of testdata/semantic/tools.yaml as another adapter
// would send them: equivalent wire forms (system and content as block
// lists, no is_error, another default max_tokens, no stream field, an
// extra beta flag).
const (
	turn1 = `{"model":"claude-sonnet-4-6","max_tokens":1024,"system":[{"type":"text","text":"Be brief."}],"messages":[{"role":"user","content":[{"type":"text","text":"Read a.txt"}]}],"tools":[{"name":"read","input_schema":{"required":["path"],"properties":{"path":{"type":"string"}},"type":"object"}}]}`
	turn2 = `{"model":"claude-sonnet-4-6","max_tokens":1024,"system":"Be brief.","messages":[{"role":"user","content":"Read a.txt"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a.txt"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"hello"}]}]}],"tools":[{"name":"read","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`
)

func semanticPlayer(t *testing.T) *replay.Player {
	t.Helper()
	p, err := replay.Load("testdata/semantic/tools", replay.WithSemantic())
	require.NoError(t, err)
	require.Equal(t, replay.MatchSemantic, p.Match())
	return p
}

func send(t *testing.T, p http.RoundTripper, ctx context.Context, body string) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/v1/messages", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Anthropic-Beta", "fine-grained-tool-streaming-2025-05-14")
	resp, err := p.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(data), nil
}

func TestSemanticServesEquivalentRequests(t *testing.T) {
	p := semanticPlayer(t)
	got, err := send(t, p, context.Background(), turn1)
	require.NoError(t, err)
	assert.Contains(t, got, `"msg_1"`)
	got, err = send(t, p, context.Background(), turn2)
	require.NoError(t, err)
	assert.Contains(t, got, `"msg_2"`)
	assert.Empty(t, p.Differences())
	assert.Empty(t, p.Unused())
}

func TestSemanticDifferenceIsServedAndNamed(t *testing.T) {
	p := semanticPlayer(t)
	_, err := send(t, p, context.Background(), turn1)
	require.NoError(t, err)
	wrong := strings.Replace(turn2, `"tool_use_id":"toolu_1"`, `"tool_use_id":"x"`, 1)
	ctx := replay.WithCall(context.Background(), replay.Call{Request: 2, Step: 3})
	got, err := send(t, p, ctx, wrong)
	require.NoError(t, err, "a request that differs still gets the recorded answer")
	assert.Contains(t, got, `"msg_2"`)
	d := p.Differences()
	require.Len(t, d, 1)
	assert.Equal(t, 3, d[0].Step)
	assert.Equal(t, 1, d[0].Interaction)
	assert.Equal(t, []string{`request 2 (POST /v1/messages): messages[2].content[0].tool_use_id: want "toolu_1", got "x"`}, d[0].Lines())
}

func TestSemanticPositionAndOrder(t *testing.T) {
	// The second turn first (concurrent calls may arrive in any order):
	// it goes to the interaction it is equivalent to, not the first.
	p := semanticPlayer(t)
	got, err := send(t, p, context.Background(), turn2)
	require.NoError(t, err)
	assert.Contains(t, got, `"msg_2"`)
	got, err = send(t, p, context.Background(), turn1)
	require.NoError(t, err)
	assert.Contains(t, got, `"msg_1"`)
	assert.Empty(t, p.Differences())

	// Requests equivalent to none go by position: the first unserved.
	p = semanticPlayer(t)
	dropped := strings.Replace(turn1, `"required":["path"],`, ``, 1)
	require.NotEqual(t, turn1, dropped)
	got, err = send(t, p, context.Background(), dropped)
	require.NoError(t, err)
	assert.Contains(t, got, `"msg_1"`)
	d := p.Differences()
	require.Len(t, d, 1)
	assert.Equal(t, 1, d[0].Request, "the player numbers requests itself without a Call")
	assert.Equal(t, -1, d[0].Step)
	require.Len(t, d[0].Fields, 1)
	assert.Equal(t, "tools[0].input_schema.required", d[0].Fields[0].Field)

	// One request more than the endpoint recorded cannot be served.
	_, err = send(t, p, context.Background(), turn2)
	require.NoError(t, err)
	_, err = send(t, p, context.Background(), turn2)
	var me *replay.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, replay.MatchSemantic, me.Match)
	assert.Equal(t, 2, me.Exhausted)
	assert.Contains(t, me.Error(), "matching semantically")
}

func TestSemanticOutputLimit(t *testing.T) {
	// max_tokens 1024 against a recorded 4096: the adapter's own default,
	// unless the call set a limit.
	p := semanticPlayer(t)
	ctx := replay.WithCall(context.Background(), replay.Call{Request: 1, Step: 1, LimitSet: true})
	_, err := send(t, p, ctx, turn1)
	require.NoError(t, err)
	d := p.Differences()
	require.Len(t, d, 1)
	require.Len(t, d[0].Fields, 1)
	assert.Equal(t, "max_tokens", d[0].Fields[0].Field)
}

func TestSemanticKeepsEndpointMatchingOfImportedCassettes(t *testing.T) {
	p, err := replay.Load(writeCassette(t, importedCassette), replay.WithSemantic())
	require.NoError(t, err)
	assert.Equal(t, replay.MatchEndpoint, p.Match())
}

// Over the replay server (conform serve), a request that differs is
// served the recorded answer, and GET /runs/{id} lists the difference.
func TestSemanticOverTheServer(t *testing.T) {
	srv, err := replay.NewServer()
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	p := semanticPlayer(t)
	run, err := srv.NewRun("", "tools/x", "anthropic:claude-sonnet-4-6", []string{"anthropic"},
		func(string) (http.RoundTripper, error) { return p, nil })
	require.NoError(t, err)

	wrong := strings.Replace(turn1, `"model":"claude-sonnet-4-6"`, `"model":"claude-opus-4-1"`, 1)
	req, err := http.NewRequest(http.MethodPost, run.BaseURL("anthropic")+"/v1/messages", strings.NewReader(wrong))
	require.NoError(t, err)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	assert.Contains(t, string(body), `"msg_1"`)
	assert.Empty(t, run.Mismatches())

	resp, err = http.Get(srv.URL + "/runs/" + run.ID)
	require.NoError(t, err)
	var shown struct {
		Differences []struct {
			Provider string `json:"provider"`
			Request  int    `json:"request"`
			Fields   []struct {
				Field, Want, Got string
			} `json:"fields"`
		} `json:"differences"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&shown))
	resp.Body.Close()
	require.Len(t, shown.Differences, 1)
	d := shown.Differences[0]
	assert.Equal(t, "anthropic", d.Provider)
	assert.Equal(t, 1, d.Request)
	require.Len(t, d.Fields, 1)
	assert.Equal(t, "model", d.Fields[0].Field)
	assert.Equal(t, `"claude-opus-4-1"`, d.Fields[0].Got)
}

// TestSemanticUnrecordedEndpoint: matching semantically, a request to an
// endpoint the cassette never recorded is a mismatch that does not claim
// its recorded requests were served.
func TestSemanticUnrecordedEndpoint(t *testing.T) {
	p := semanticPlayer(t)
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/messages/count_tokens", strings.NewReader(turn1))
	require.NoError(t, err)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	_, err = p.RoundTrip(req)
	var me *replay.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Zero(t, me.Exhausted)
	assert.Contains(t, me.Error(), "no unserved interaction matches POST http://127.0.0.1:1/v1/messages/count_tokens")
	assert.NotContains(t, me.Error(), "already served")
}
