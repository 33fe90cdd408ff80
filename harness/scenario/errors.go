package scenario

import "strings"

// Error is a problem found in a scenario file, located by file, line and
// column. Loading and linting report every problem as one.
type Error struct {
	Pos Pos
	// Rule names the lint rule for lint problems ("" for load errors).
	Rule string
	Msg  string
}

// Error formats the problem as "file:line:col: message".
func (e *Error) Error() string {
	if e.Rule != "" {
		return e.Pos.String() + ": " + e.Msg + " [" + e.Rule + "]"
	}
	return e.Pos.String() + ": " + e.Msg
}

// Errors is a list of problems; it is an error when not empty.
type Errors []*Error

// Error joins the problems, one per line.
func (es Errors) Error() string {
	var sb strings.Builder
	for i, e := range es {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(e.Error())
	}
	return sb.String()
}

// Unwrap exposes each problem to errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// err returns es as an error, or nil when empty.
func (es Errors) err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
