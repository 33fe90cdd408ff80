package textdiff

import "testing"

func TestDiff(t *testing.T) {
	tests := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc\n", "a\nx\nc\n", "@@ line 1 @@\n a\n-b\n+x\n c\n"},
		{"added at end", "a\n", "a\nb\n", "@@ line 1 @@\n a\n+b\n"},
		{"removed first", "a\nb\n", "b\n", "@@ line 1 @@\n-a\n b\n"},
		{"empty want", "", "x\n", "@@ line 1 @@\n+x\n"},
		{"missing final newline", "a\n", "a", "@@ line 1 @@\n-a\n+a\n\\ no newline at end\n"},
		{
			"distant changes get two hunks",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
			"x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n",
			"@@ line 1 @@\n-1\n+x\n 2\n 3\n 4\n@@ line 7 @@\n 7\n 8\n 9\n-10\n+y\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.want, tt.got); got != tt.diff {
				t.Errorf("Diff(%q, %q) =\n%s\nwant\n%s", tt.want, tt.got, got, tt.diff)
			}
		})
	}
}
