package replay

import "github.com/metis-llm/metis/harness/internal/textdiff"

func diffOf(want, got string) string { return textdiff.Diff(want, got) }
