package certify

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/metis-llm/metis/harness/scenario"
)

// Markdown renders the report as a certificate: the verdict, what was
// certified against what, the profiles, the declared capabilities, every
// run and the command that reproduces it.
func (r *Report) Markdown() string {
	var sb strings.Builder
	name := r.Adapter.Name
	if r.Adapter.Version != "" {
		name += " " + r.Adapter.Version
	}
	fmt.Fprintf(&sb, "# metis certification: %s\n\n**%s**\n\n", mdEscape(name), mdEscape(r.Verdict()))
	sb.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&sb, "| %s | %s |\n", k, mdEscape(v)) }
	row("adapter", fmt.Sprintf("%s (%s, provider %s)", name, r.Adapter.Kind, r.Adapter.Provider))
	if r.Adapter.Command != "" {
		row("command", r.Adapter.Command)
	}
	if r.Adapter.Protocol != "" {
		row("protocol", r.Adapter.Protocol)
	}
	row("suite", r.Suite.String())
	metis := r.Metis.Version
	if r.Metis.Revision != "" {
		metis += " (" + r.Metis.Revision + ")"
	}
	row("metis", metis+", "+r.Metis.GoVersion)
	row("started", r.Started.Format("2006-01-02 15:04:05 UTC"))
	row("runs", fmt.Sprintf("%d passed, %d failed, %d skipped, %d not run", r.Counts.Passed, r.Counts.Failed, r.Counts.Skipped, r.Counts.NotRun))

	sb.WriteString("\n## Profiles\n\n| profile | status | passed | failed | skipped | not run |\n|---|---|---|---|---|---|\n")
	for _, p := range r.Profiles {
		status := p.Status
		if p.Required {
			status += " (required)"
		}
		fmt.Fprintf(&sb, "| %s | %s | %d | %d | %d | %d |\n", p.Name, status, p.Passed, p.Failed, p.Skipped, p.NotRun)
	}

	if len(r.Capabilities) > 0 {
		names := scenario.Capabilities()
		sb.WriteString("\n## Declared capabilities\n\n| model | " + strings.Join(names, " | ") + " | context | output |\n|---|")
		sb.WriteString(strings.Repeat("---|", len(names)+2) + "\n")
		for _, model := range slices.Sorted(maps.Keys(r.Capabilities)) {
			caps := r.Capabilities[model]
			fmt.Fprintf(&sb, "| %s |", mdEscape(model))
			for _, n := range names {
				has, _ := scenario.Has(caps, n)
				fmt.Fprintf(&sb, " %s |", yesNo(has))
			}
			fmt.Fprintf(&sb, " %d | %d |\n", caps.MaxContextTokens, caps.MaxOutputTokens)
		}
	}

	sb.WriteString("\n## Runs\n\n| run | profile | status | ms | first failure or reason |\n|---|---|---|---|---|\n")
	for _, run := range r.Runs {
		detail := run.Reason
		if f := run.FirstFailure; f != nil {
			detail = f.Check + ": " + f.Message
			if f.Step > 0 {
				detail = fmt.Sprintf("step %d %s", f.Step, detail)
			}
		}
		fmt.Fprintf(&sb, "| %s [%s] | %s | %s | %.0f | %s |\n", mdEscape(run.Scenario), mdEscape(run.Model), run.Profile, run.Status, run.DurationMS, mdEscape(firstLine(detail)))
	}
	if r.Reproduce != "" {
		fmt.Fprintf(&sb, "\n## Reproduce\n\n```sh\n%s\n```\n", r.Reproduce)
	}
	return sb.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mdEscape makes s safe in a Markdown table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
