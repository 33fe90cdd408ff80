package canonical

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaURL is the made-up location tool schemas are compiled under.
const schemaURL = "urn:metis:tool-input-schema"

// noLoader refuses to load any URL. The library's default loader reads
// local files, so without it a schema {"$ref": "file:///etc/passwd"} would
// make the compiler open that file; with it, any reference outside the
// document fails to compile. (The draft meta-schemas are built in.)
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %q: tool schemas must be self-contained", url)
}

// compileSchema compiles a decoded schema document as draft 2020-12.
func compileSchema(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// schemaCacheMax bounds the compiled-schema cache; when full it is
// emptied, which is cheap and keeps memory bounded for processes that see
// endless distinct schemas.
const schemaCacheMax = 512

var schemaCache = struct {
	sync.RWMutex
	m map[string]*jsonschema.Schema
}{m: map[string]*jsonschema.Schema{}}

// cachedSchema returns the compiled form of raw, compiling it the first
// time these exact bytes are seen. It is safe for concurrent use; compiled
// schemas are immutable and their Validate is safe to share.
func cachedSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	key := string(raw)
	schemaCache.RLock()
	s, ok := schemaCache.m[key]
	schemaCache.RUnlock()
	if ok {
		return s, nil
	}
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("input schema is not valid JSON: %w", err)
	}
	s, err = compileSchema(doc)
	if err != nil {
		return nil, fmt.Errorf("input schema does not compile: %w", err)
	}
	schemaCache.Lock()
	if len(schemaCache.m) >= schemaCacheMax {
		clear(schemaCache.m)
	}
	schemaCache.m[key] = s
	schemaCache.Unlock()
	return s, nil
}

var englishPrinter = message.NewPrinter(language.English)

// addValidationErrors adds one CodeToolInputInvalid violation per leaf of
// the library's error tree, with the JSON pointer of the failing value.
func addValidationErrors(vs *Violations, err error) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		vs.add("input", CodeToolInputInvalid, "%v", err)
		return
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		var ptr strings.Builder
		for _, tok := range e.InstanceLocation {
			ptr.WriteByte('/')
			ptr.WriteString(escapePointer(tok))
		}
		vs.add("input#"+ptr.String(), CodeToolInputInvalid, "%s", e.ErrorKind.LocalizedString(englishPrinter))
	}
	walk(ve)
}
