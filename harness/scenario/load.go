package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/internal/readfile"
)

// Parse reads one scenario from data; file names it in errors. The YAML
// is checked against the schema (SchemaJSON) and then decoded; every
// problem is an *Error naming file:line:column (the column is unknown for
// YAML syntax errors, which the YAML parser reports by line only).
func Parse(file string, data []byte) (*Scenario, error) {
	t, err := newTree(file, data)
	if err != nil {
		return nil, err
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	sc, err := t.decode()
	if err != nil {
		return nil, err
	}
	sc.File = file
	sc.pos = t.pos
	return sc, nil
}

// LoadFile reads the scenario file at path.
func LoadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading scenario: %w", err)
	}
	return Parse(path, data)
}

// LoadDir loads every *.yaml file under dir, in lexical order of path. It
// returns the scenarios that loaded and, if any file failed, an Errors
// listing every problem; Scenario.Rel is each file's path relative to dir.
func LoadDir(dir string) ([]*Scenario, error) {
	name := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	read := func(rel string) ([]byte, error) {
		data, err := readfile.ReadFile(name(rel))
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = rel // as os.DirFS names it
		}
		return data, err
	}
	return loadFS(os.DirFS(dir), name, read)
}

// LoadFS is LoadDir over a file system, such as scenarios.FS; files are
// named in errors by their path in fsys.
func LoadFS(fsys fs.FS) ([]*Scenario, error) {
	return loadFS(fsys, func(rel string) string { return rel }, func(rel string) ([]byte, error) { return fs.ReadFile(fsys, rel) })
}

// loadFS lists the scenario files of fsys, then reads and parses them on
// GOMAXPROCS goroutines (the parse, YAML and the schema, is the serial
// start of every conform run), and gathers the results in the order of
// the list: the scenarios, the errors and the first failure that stops
// the load are those of reading the files one after another.
func loadFS(fsys fs.FS, name func(rel string) string, read func(rel string) ([]byte, error)) ([]*Scenario, error) {
	var rels []string
	walkErr := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Ext(p) == ".yaml" && !DataFiles[p] {
			rels = append(rels, p)
		}
		return nil
	})
	type parsed struct {
		sc  *Scenario
		err error // a *Error, or one (reading the file) that stops the load
	}
	results := make([]parsed, len(rels))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(rels)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(rels); i = int(next.Add(1) - 1) {
				data, err := read(rels[i])
				if err != nil {
					results[i] = parsed{err: err}
					continue
				}
				sc, err := Parse(name(rels[i]), data)
				results[i] = parsed{sc: sc, err: err}
			}
		})
	}
	wg.Wait()
	var (
		out  []*Scenario
		errs Errors
	)
	for i, r := range results {
		var e *Error
		switch {
		case errors.As(r.err, &e):
			errs = append(errs, e)
		case r.err != nil:
			return out, fmt.Errorf("loading scenarios: %w", r.err)
		default:
			r.sc.Rel = rels[i]
			out = append(out, r.sc)
		}
	}
	if walkErr != nil {
		return out, fmt.Errorf("loading scenarios: %w", walkErr)
	}
	return out, errs.err()
}

// fileJSON is the JSON form of a scenario file, after schema validation.
type fileJSON struct {
	ID          string            `json:"id"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Spec        []string          `json:"spec"`
	Tags        []string          `json:"tags"`
	Requires    []string          `json:"requires"`
	Models      []string          `json:"models"`
	Columns     []string          `json:"columns"`
	Lacks       []string          `json:"lacks"`
	SameAs      string            `json:"same_as"`
	Known       []KnownFailure    `json:"known_failures"`
	Invalid     bool              `json:"invalid_tools"`
	Oracle      Oracle            `json:"oracle"`
	Tools       []json.RawMessage `json:"tools"`
	System      string            `json:"system"`
	MaxRetries  *int              `json:"max_retries"`
	RunTimeout  string            `json:"run_timeout"`
	AdapterOpts map[string]any    `json:"adapter_options"`
	CallTimeout string            `json:"call_timeout"`
	Creds       *credentialsJSON  `json:"credentials"`
	Comp        json.RawMessage   `json:"compensations"`
	Steps       []stepJSON        `json:"steps"`
}

type stepJSON struct {
	User       json.RawMessage `json:"user"`
	Call       json.RawMessage `json:"call"`
	ToolResult json.RawMessage `json:"tool_result"`
	Swap       json.RawMessage `json:"swap"`
	Cancel     json.RawMessage `json:"cancel"`
	Inject     map[string]any  `json:"inject"`
	History    json.RawMessage `json:"history"`
	Reload     json.RawMessage `json:"reload"`
	Ready      json.RawMessage `json:"ready"`
	Expect     json.RawMessage `json:"expect"`
	Note       string          `json:"note"`
}

// decode turns the validated tree into a Scenario.
func (t *tree) decode() (*Scenario, error) {
	raw, err := json.Marshal(t.root)
	if err != nil {
		return nil, t.errorf("", "%v", err)
	}
	var f fileJSON
	if err := strictUnmarshal(raw, &f); err != nil {
		return nil, t.errorf("", "%v", err)
	}
	sc := &Scenario{
		ID: f.ID, Title: f.Title, Description: f.Description, Spec: f.Spec, Tags: f.Tags,
		Requires: f.Requires, Models: f.Models, System: f.System, MaxRetries: f.MaxRetries, AdapterOptions: f.AdapterOpts,
		Columns: f.Columns, Lacks: f.Lacks, SameAs: f.SameAs, KnownFailures: f.Known, InvalidTools: f.Invalid,
		Oracle: f.Oracle,
	}
	if f.RunTimeout != "" {
		d, err := time.ParseDuration(f.RunTimeout)
		if err != nil || d <= 0 {
			return nil, t.errorf("/run_timeout", "run_timeout %q: want a positive duration such as 30s or 500ms", f.RunTimeout)
		}
		sc.RunTimeout = d
	}
	if f.CallTimeout != "" {
		d, err := time.ParseDuration(f.CallTimeout)
		if err != nil || d <= 0 {
			return nil, t.errorf("/call_timeout", "call_timeout %q: want a positive duration such as 30s or 500ms", f.CallTimeout)
		}
		sc.CallTimeout = d
	}
	if f.Creds != nil {
		c, err := t.credentials(f.Creds)
		if err != nil {
			return nil, err
		}
		sc.Credentials = c
	}
	if f.Comp != nil {
		// The tree's value keeps numbers as written, for the registry's
		// parser to tell 2 from 2.0.
		block, _ := t.root.(map[string]any)["compensations"].(map[string]any)
		if err := t.compensations(block); err != nil {
			return nil, err
		}
		sc.Compensations = block
	}
	for i, rt := range f.Tools {
		var td canonical.ToolDefinition
		if err := json.Unmarshal(rt, &td); err != nil {
			return nil, t.errorf("/tools/"+strconv.Itoa(i), "%v", err)
		}
		if td.SideEffects == "" {
			td.SideEffects = canonical.SideEffectsNone
		}
		sc.Tools = append(sc.Tools, td)
	}
	for i, sj := range f.Steps {
		st, err := t.step(i, sj)
		if err != nil {
			return nil, err
		}
		sc.Steps = append(sc.Steps, st)
	}
	return sc, nil
}

func (t *tree) step(i int, sj stepJSON) (Step, error) {
	ptr := "/steps/" + strconv.Itoa(i)
	st := Step{Index: i, Pos: t.position(ptr), Note: sj.Note}
	var err error
	switch {
	case sj.User != nil:
		st.Kind = StepUser
		st.User, err = decodeUser(sj.User)
	case sj.Call != nil:
		st.Kind = StepCall
		st.Call, err = t.decodeCall(ptr+"/call", sj.Call)
	case sj.ToolResult != nil:
		st.Kind = StepToolResult
		st.ToolResult, err = decodeToolResult(sj.ToolResult)
	case sj.Swap != nil:
		st.Kind = StepSwap
		st.Swap, err = decodeSwap(sj.Swap)
	case sj.Cancel != nil:
		st.Kind = StepCancel
		st.Cancel = &CancelStep{}
		err = strictUnmarshal(sj.Cancel, st.Cancel)
	case sj.Inject != nil:
		st.Kind = StepInject
		st.Inject = sj.Inject
	case sj.History != nil:
		st.Kind = StepHistory
		st.History, err = t.decodeHistory(ptr+"/history", sj.History)
	case sj.Reload != nil:
		st.Kind, st.Reload = StepReload, true
	case sj.Ready != nil:
		st.Kind = StepReady
		st.Ready = &ReadyStep{}
		if string(sj.Ready) != "null" && string(sj.Ready) != "true" {
			err = strictUnmarshal(sj.Ready, st.Ready)
		}
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return st, e
		}
		return st, t.errorf(ptr+"/"+string(st.Kind), "%v", err)
	}
	if sj.Expect != nil {
		if st.Kind != StepCall && st.Kind != StepSwap && st.Kind != StepReady {
			return st, &Error{Pos: t.keyPosition(ptr + "/expect"), Msg: fmt.Sprintf("steps[%d]: expect belongs to a call, swap or ready step, not a %s step", i, st.Kind)}
		}
		st.Expect, err = t.decodeExpect(ptr+"/expect", sj.Expect)
		if err != nil {
			return st, err
		}
	}
	if st.Kind == StepSwap && st.Swap.ExpectRefusal {
		if st.Expect == nil {
			st.Expect = &Expect{}
		}
		st.Expect.Refused = true
	}
	return st, nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func decodeUser(raw json.RawMessage) (*UserStep, error) {
	u := &UserStep{}
	if raw[0] == '"' {
		return u, json.Unmarshal(raw, &u.Text)
	}
	return u, strictUnmarshal(raw, u)
}

func (t *tree) decodeCall(ptr string, raw json.RawMessage) (*CallStep, error) {
	var cj struct {
		Stream          bool                      `json:"stream"`
		Both            bool                      `json:"both"`
		Direct          bool                      `json:"direct"`
		Model           string                    `json:"model"`
		MaxOutputTokens int                       `json:"max_output_tokens"`
		Thinking        *canonical.ThinkingConfig `json:"thinking"`
		ToolChoice      json.RawMessage           `json:"tool_choice"`
		StopSequences   []string                  `json:"stop_sequences"`
		Temperature     *float64                  `json:"temperature"`
		OutputSchema    json.RawMessage           `json:"output_schema"`
		Reply           *Reply                    `json:"reply"`
	}
	if string(raw) != "null" {
		if err := strictUnmarshal(raw, &cj); err != nil {
			return nil, err
		}
	}
	c := &CallStep{
		Stream: cj.Stream, Both: cj.Both, Direct: cj.Direct, Model: cj.Model, MaxOutputTokens: cj.MaxOutputTokens,
		Thinking: cj.Thinking, StopSequences: cj.StopSequences, Temperature: cj.Temperature,
		OutputSchema: cj.OutputSchema, Reply: cj.Reply,
	}
	if cj.ToolChoice != nil {
		var mode string
		if json.Unmarshal(cj.ToolChoice, &mode) == nil {
			c.ToolChoice = &canonical.ToolChoice{Mode: canonical.ToolChoiceMode(mode)}
		} else {
			var named struct {
				Tool string `json:"tool"`
			}
			if err := strictUnmarshal(cj.ToolChoice, &named); err != nil {
				return nil, t.errorf(ptr+"/tool_choice", "%v", err)
			}
			c.ToolChoice = &canonical.ToolChoice{Mode: canonical.ToolChoiceTool, Name: named.Tool}
		}
	}
	return c, nil
}

func decodeToolResult(raw json.RawMessage) (*ToolResultStep, error) {
	r := &ToolResultStep{}
	if raw[0] == '"' {
		return r, json.Unmarshal(raw, &r.Content)
	}
	return r, strictUnmarshal(raw, r)
}

func decodeSwap(raw json.RawMessage) (*SwapStep, error) {
	s := &SwapStep{}
	if raw[0] == '"' {
		return s, json.Unmarshal(raw, &s.Model)
	}
	return s, strictUnmarshal(raw, s)
}

func (t *tree) decodeHistory(ptr string, raw json.RawMessage) ([]canonical.Message, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]canonical.Message, 0, len(items))
	for i, item := range items {
		var m canonical.Message
		if err := json.Unmarshal(item, &m); err != nil {
			return nil, t.errorf(ptr+"/"+strconv.Itoa(i), "%v", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Capabilities returns the capability names a scenario's requires may
// use: the JSON names of canonical.Capabilities' boolean supports_ fields
// without the prefix, in declaration order.
func Capabilities() []string { return slices.Clone(capabilityOrder) }

// Has reports whether caps declares the named capability (a requires
// name); known is false for a name that is not a capability.
func Has(caps canonical.Capabilities, name string) (has, known bool) {
	i, known := capabilityField[name]
	if !known {
		return false, false
	}
	return reflect.ValueOf(caps).Field(i).Bool(), true
}

// capabilityOrder and capabilityField are canonical.Capabilities'
// boolean supports_ fields: their short names (the JSON name without
// "supports_") in declaration order, and each one's field index. Has is
// called for every requirement of every run, so it reads the field by
// index rather than through a JSON round trip.
var capabilityOrder, capabilityField = func() ([]string, map[string]int) {
	t := reflect.TypeFor[canonical.Capabilities]()
	var order []string
	index := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name, ok := strings.CutPrefix(tag, "supports_"); ok && f.Type.Kind() == reflect.Bool {
			order = append(order, name)
			index[name] = i
		}
	}
	return order, index
}()

// credentialsJSON is the JSON form of credentials:.
type credentialsJSON struct {
	Env    map[string]string `json:"env"`
	Tokens []struct {
		Token     string `json:"token"`
		ExpiresIn string `json:"expires_in"`
	} `json:"tokens"`
}

// credentials checks and converts a scenario's credentials: block.
func (t *tree) credentials(f *credentialsJSON) (*Credentials, error) {
	c := &Credentials{Env: f.Env}
	for i, tok := range f.Tokens {
		ptr := fmt.Sprintf("/credentials/tokens/%d", i)
		if tok.Token == "" {
			return nil, t.errorf(ptr+"/token", "credentials.tokens[%d].token: a token is a non-empty text", i)
		}
		st := ScriptedToken{Token: tok.Token}
		if tok.ExpiresIn != "" {
			d, err := time.ParseDuration(tok.ExpiresIn)
			if err != nil || d <= 0 {
				return nil, t.errorf(ptr+"/expires_in", "credentials.tokens[%d].expires_in %q: want a positive duration such as 10m", i, tok.ExpiresIn)
			}
			st.ExpiresIn = d
		}
		c.Tokens = append(c.Tokens, st)
	}
	return c, nil
}
