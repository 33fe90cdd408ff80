package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metis-llm/metis/harness/scenario"
)

// TestRegressionScenariosListed holds oracles.md's table of
// regression-only scenarios to the suite: every scenario marked
// `oracle: regression` is named there, and every scenario the table
// names is one, so a reader sees every check a certificate leaves out.
func TestRegressionScenariosListed(t *testing.T) {
	all, err := scenario.LoadDir(filepath.Join(root, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("oracles.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "## A regression-only scenario")
	if !ok {
		t.Fatal(`oracles.md: no section "## A regression-only scenario"`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	byID := map[string]*scenario.Scenario{}
	regression := 0
	for _, sc := range all {
		byID[sc.ID] = sc
		if sc.Oracle != scenario.OracleRegression {
			continue
		}
		regression++
		if !strings.Contains(table, "`"+sc.ID+"`") {
			t.Errorf("oracles.md: regression-only scenario %s is missing from the table", sc.ID)
		}
	}
	if regression == 0 {
		t.Fatal("no scenario is marked oracle: regression; the loader or the field changed")
	}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, name := range strings.Split(cells[1], ",") {
			id := strings.Trim(strings.TrimSpace(name), "`")
			sc, ok := byID[id]
			switch {
			case !ok:
				t.Errorf("oracles.md: the table names %s, which is no scenario", id)
			case sc.Oracle != scenario.OracleRegression:
				t.Errorf("oracles.md: the table names %s, which is not oracle: regression", id)
			}
		}
	}
}
