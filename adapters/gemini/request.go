package gemini

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// generateRequest is the body of generateContent and streamGenerateContent.
type generateRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []tool            `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

// content is one turn: a role and its parts.
type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is one request part; exactly one data field is set. Text is a
// pointer so that an empty text part carrying a signature still has its
// text field.
type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FileData         *fileData         `json:"fileData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type fileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response responseResult `json:"response"`
}

// responseResult is a functionResponse's response object. The
// FunctionResponse documentation names "output" for the function's output
// and "error" for error details.
type responseResult struct {
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`
}

type tool struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Parameters  *schema `json:"parameters,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode,omitempty"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
	// StreamFunctionCallArguments is Vertex AI's (EncodeBody's options).
	StreamFunctionCallArguments bool `json:"streamFunctionCallArguments,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens  int             `json:"maxOutputTokens,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	TopP             *float64        `json:"topP,omitempty"`
	Seed             *int64          `json:"seed,omitempty"`
	StopSequences    []string        `json:"stopSequences,omitempty"`
	ResponseMimeType string          `json:"responseMimeType,omitempty"`
	ResponseSchema   *schema         `json:"responseSchema,omitempty"`
	ThinkingConfig   *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// Wire roles.
const (
	roleUser  = "user"
	roleModel = "model"
)

// foreignSignature is the placeholder Gemini 3 documents for function
// calls it did not produce (another model's history): it skips the
// signature validator for that part.
const foreignSignature = "skip_thought_signature_validator"

// effortBudgets maps ThinkingConfig.Effort to a thinking budget for models
// that take budgets.
var effortBudgets = map[string]int{"low": 1024, "medium": 8192, "high": 24576}

// buildRequest encodes the call's request for the wire model.
func buildRequest(c *driver.Call, wire string) ([]byte, error) {
	body, err := newRequest(c, wire)
	if err != nil {
		return nil, err
	}
	return encodeRequest(body)
}

// newRequest maps the call's request for the wire model.
func newRequest(c *driver.Call, wire string) (*generateRequest, error) {
	req := c.Request
	b := &builder{
		c:         c,
		adapter:   c.Adapter,
		ids:       req.ToolIDs,
		gemini3:   isGemini3(wire),
		calls:     map[string]callInfo{},
		responses: map[*functionResponse]int{},
	}
	contents, err := b.contents(req.Messages)
	if err != nil {
		return nil, err
	}
	tools, err := declarations(req.Tools)
	if err != nil {
		return nil, err
	}
	gen, err := generation(req, capabilitiesFor(wire), wire)
	if err != nil {
		return nil, err
	}
	body := &generateRequest{
		Contents:          contents,
		SystemInstruction: b.system(req),
		Tools:             tools,
		ToolConfig:        toolChoice(req.ToolChoice, len(req.Tools) > 0),
		GenerationConfig:  gen,
	}
	return body, nil
}

// encodeRequest encodes a mapped request.
func encodeRequest(body *generateRequest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, driver.InvalidRequest(canonical.CodeInvalidHistory, "encoding request: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// declarations converts the tool definitions.
func declarations(defs []canonical.ToolDefinition) ([]tool, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	decls := make([]functionDeclaration, 0, len(defs))
	for i, d := range defs {
		fd := functionDeclaration{Name: d.Name, Description: d.Description}
		if len(bytes.TrimSpace(d.InputSchema)) > 0 {
			s, err := convertSchema(d.InputSchema, false)
			if err != nil {
				return nil, driver.InvalidRequest(canonical.CodeInvalidToolSchema,
					"tools[%d] (%s): input_schema: %v", i, d.Name, err)
			}
			fd.Parameters = s
		}
		decls = append(decls, fd)
	}
	return []tool{{FunctionDeclarations: decls}}, nil
}

// toolChoice maps the canonical tool choice to functionCallingConfig.
func toolChoice(tc *canonical.ToolChoice, hasTools bool) *toolConfig {
	if tc == nil || !hasTools {
		return nil
	}
	var c functionCallingConfig
	switch tc.Mode {
	case canonical.ToolChoiceAuto:
		c.Mode = "AUTO"
	case canonical.ToolChoiceAny:
		c.Mode = "ANY"
	case canonical.ToolChoiceTool:
		c.Mode, c.AllowedFunctionNames = "ANY", []string{tc.Name}
	case canonical.ToolChoiceNone:
		c.Mode = "NONE"
	default:
		return nil
	}
	return &toolConfig{FunctionCallingConfig: c}
}

// generation builds generationConfig, or nil when nothing is set.
func generation(req *canonical.Request, caps canonical.Capabilities, wire string) (*generationConfig, error) {
	g := &generationConfig{
		MaxOutputTokens: req.MaxOutputTokens,
		Temperature:     req.Temperature,
		TopP:            req.TopP,
		Seed:            req.Seed,
		StopSequences:   req.StopSequences,
	}
	if len(bytes.TrimSpace(req.OutputSchema)) > 0 {
		s, err := convertSchema(req.OutputSchema, true)
		if err != nil {
			return nil, driver.InvalidRequest(canonical.CodeInvalidToolSchema, "output_schema: %v", err)
		}
		g.ResponseMimeType, g.ResponseSchema = "application/json", s
	}
	if t := req.Thinking; t != nil && caps.SupportsThinking {
		tc := &thinkingConfig{IncludeThoughts: true}
		switch {
		case t.BudgetTokens > 0:
			tc.ThinkingBudget = &t.BudgetTokens
		case t.Effort != "" && isGemini3(wire):
			tc.ThinkingLevel = strings.ToUpper(t.Effort)
		case effortBudgets[t.Effort] > 0:
			n := effortBudgets[t.Effort]
			tc.ThinkingBudget = &n
		}
		g.ThinkingConfig = tc
	}
	if g.MaxOutputTokens == 0 && g.Temperature == nil && g.TopP == nil && g.Seed == nil &&
		len(g.StopSequences) == 0 && g.ResponseSchema == nil && g.ThinkingConfig == nil {
		return nil, nil
	}
	return g, nil
}
