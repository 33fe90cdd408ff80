package harness

import (
	"strings"
	"testing"

	"github.com/metis-llm/metis/harness/scenario"
)

// TestSelectionOfConfig: a Config's filters become its Selection, the
// shard counted from 1 and only when there is more than one.
func TestSelectionOfConfig(t *testing.T) {
	for _, tt := range []struct {
		name      string
		cfg       Config
		want      string
		filtered  bool
		wantShard *Shard
	}{
		{"none", Config{}, "", false, nil},
		{"one shard of one", Config{Shard: 0, Shards: 1}, "", false, nil},
		{"first of two", Config{Shard: 0, Shards: 2}, "--shard 1/2", true, &Shard{Index: 1, Count: 2}},
		{"third of four", Config{Shard: 2, Shards: 4}, "--shard 3/4", true, &Shard{Index: 3, Count: 4}},
		{"ids", Config{IDs: []string{"tools/*", "basic/a"}}, "'tools/*' basic/a", true, nil},
		{"models", Config{Models: []string{"gemini"}}, "--model gemini", true, nil},
		{"tags", Config{Tags: []string{"slow tag"}}, "--tag 'slow tag'", true, nil},
		{"skip", Config{Skip: []string{"it's"}}, `--skip 'it'\''s'`, true, nil},
		{
			"all, in command-line order",
			Config{IDs: []string{"a"}, Models: []string{"m"}, Tags: []string{"t"}, Skip: []string{"k"}, Shard: 1, Shards: 3},
			"a --model m --tag t --skip k --shard 2/3", true, &Shard{Index: 2, Count: 3},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.cfg.selection()
			if got := s.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := s.Filtered(); got != tt.filtered {
				t.Errorf("Filtered() = %v, want %v", got, tt.filtered)
			}
			switch {
			case tt.wantShard == nil && s.Shard != nil:
				t.Errorf("Shard = %v, want none", *s.Shard)
			case tt.wantShard != nil && (s.Shard == nil || *s.Shard != *tt.wantShard):
				t.Errorf("Shard = %v, want %v", s.Shard, *tt.wantShard)
			}
		})
	}
}

// TestSelectionQuotesArgs: an argument is quoted for a POSIX shell only
// when the shell would change it.
func TestSelectionQuotesArgs(t *testing.T) {
	for in, want := range map[string]string{
		"plain/id-1": "plain/id-1",
		"":           "''",
		"a b":        "'a b'",
		"a*":         "'a*'",
		"a?":         "'a?'",
		"[x]":        "'[x]'",
		"$HOME":      "'$HOME'",
		`a\b`:        `'a\b'`,
		`say "hi"`:   `'say "hi"'`,
		"it's":       `'it'\''s'`,
	} {
		if got := quoteArg(in); got != want {
			t.Errorf("quoteArg(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestNoMatchNamesTheFilter: NoMatch is nil when something is selected,
// even when a shard is empty, and otherwise names each filter that
// matches nothing on its own, or says the combination is empty.
func TestNoMatchNamesTheFilter(t *testing.T) {
	parse := func(name, src string) *scenario.Scenario {
		t.Helper()
		sc, err := scenario.Parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	scs := []*scenario.Scenario{
		parse("a.yaml", "id: tools/a\ntitle: t\ntags: [tools]\nmodels: [anthropic:claude-sonnet-4-6]\nsteps: [{user: hi}]\n"),
		parse("b.yaml", "id: basic/b\ntitle: t\ntags: [basic]\nmodels: [openai:gpt-5]\nsteps: [{user: hi}]\n"),
	}
	for _, tt := range []struct {
		name string
		scs  []*scenario.Scenario
		cfg  Config
		want []string // substrings of the error; nil for no error
	}{
		{"everything", scs, Config{}, nil},
		{"a shard with nothing in it", scs, Config{IDs: []string{"basic/b"}, Shard: 1, Shards: 2}, nil},
		{"skip one", scs, Config{Skip: []string{"basic"}}, nil},
		{"no scenario", nil, Config{ScenarioDir: "empty"}, []string{"empty holds no scenario"}},
		{"id", scs, Config{IDs: []string{"typo/*"}}, []string{"no scenario id matches 'typo/*'"}},
		{"tag", scs, Config{Tags: []string{"nope"}}, []string{"--tag nope: no scenario has that tag"}},
		{"model", scs, Config{Models: []string{"gemini"}}, []string{"--model gemini: no scenario's matrix has that model or provider"}},
		{"id and model", scs, Config{IDs: []string{"x"}, Models: []string{"y"}}, []string{"no scenario id matches x", "--model y", "selected by x --model y:"}},
		{"combination", scs, Config{IDs: []string{"tools/a"}, Tags: []string{"basic"}}, []string{"each filter matches something, but together they select nothing"}},
		{"skip by id glob removes all", scs, Config{IDs: []string{"tools/a"}, Skip: []string{"tools/*"}}, []string{"--skip tools/* removes every run"}},
		{"skip removes all", scs, Config{IDs: []string{"tools/a"}, Skip: []string{"tools", "x"}}, []string{"--skip tools, x removes every run the other filters select"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := NoMatch(tt.scs, tt.cfg)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("NoMatch = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("NoMatch = nil, want an error saying %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("NoMatch = %q, want it to say %q", err, w)
				}
			}
		})
	}
}
