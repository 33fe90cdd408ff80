package canonical

import (
	"fmt"
	"strings"
)

// CodeInvalidToolDefinition is the Code of a tool definition whose name or
// side_effects break 001 §4.4, or whose name repeats another tool's in one
// request (004 §5). Schema problems use CodeInvalidToolSchema instead.
const CodeInvalidToolDefinition = "invalid_tool_definition"

// A Violation is one broken rule found by ValidateMessage, ValidateHistory,
// ValidateToolDefinition, ValidateToolInput or CheckToolSchema.
type Violation struct {
	// Path names the offending value: "messages[3].content[1]",
	// "tools[0].input_schema#/properties/path/$ref", "input#/path".
	// The part after '#' is a JSON pointer (RFC 6901).
	Path string
	// Code is the AdapterError code the violation falls under, such as
	// CodeInvalidHistory or CodeToolInputInvalid.
	Code string
	// Reason says what is wrong, in words.
	Reason string
}

// Error formats the violation as "path: reason".
func (v *Violation) Error() string {
	if v.Path == "" {
		return v.Reason
	}
	return v.Path + ": " + v.Reason
}

// Violations is every violation one validation found, in the order found.
// Validation errors carry it as AdapterError.Err, so
//
//	var vs canonical.Violations
//	if errors.As(err, &vs) { ... }
//
// lists them all, and errors.As with a *Violation finds the first.
type Violations []*Violation

// maxListed bounds how many violations Error spells out, so that garbage
// input cannot make a megabyte error message.
const maxListed = 20

// Error joins the violations with "; ", listing at most 20.
func (vs Violations) Error() string {
	var b strings.Builder
	for i, v := range vs {
		if i == maxListed {
			fmt.Fprintf(&b, "; and %d more", len(vs)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.Error())
	}
	return b.String()
}

// Unwrap exposes each violation to errors.Is and errors.As.
func (vs Violations) Unwrap() []error {
	out := make([]error, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// err returns nil for no violations, otherwise the *AdapterError that
// validation reports: class invalid_request, the first violation's code,
// and every violation in Err.
func (vs Violations) err() error {
	if len(vs) == 0 {
		return nil
	}
	return &AdapterError{
		Class:   ErrInvalidRequest,
		Code:    vs[0].Code,
		Message: vs.Error(),
		Err:     vs,
	}
}

// add records a violation at path.
func (vs *Violations) add(path, code, format string, args ...any) {
	*vs = append(*vs, &Violation{Path: path, Code: code, Reason: fmt.Sprintf(format, args...)})
}

// addPrefixed records others with prefix put in front of their paths.
func (vs *Violations) addPrefixed(prefix string, others Violations) {
	for _, v := range others {
		*vs = append(*vs, &Violation{Path: prefix + v.Path, Code: v.Code, Reason: v.Reason})
	}
}

// field joins a path prefix and a field name with a dot.
func field(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
