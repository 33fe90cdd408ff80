// Package report writes the outcome of a harness run — a harness.Result —
// as the files a person or a CI reads: junit.xml (JUnit), report.json
// (everything, with its JSON Schema ReportSchemaJSON), summary.md
// (Markdown, failures first) and report.html (one self-contained page).
// WriteReports writes all four into a directory.
//
// It also reads report.json back (ReadReport, ParseReport), joins the
// reports of a sharded run's shards into the Result of the unsharded run
// (MergeReports), says what to show first about a failed run and the
// command that re-runs it (Focus, RerunCommand), and builds report.json's
// fault matrix from the runs' fault uses (NewFaultMatrix).
//
// report sits last in a scenario run's flow: it imports package harness
// for the Result it renders, and nothing in harness imports it.
package report
