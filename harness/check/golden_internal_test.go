package check

import "testing"

func TestNormalizer(t *testing.T) {
	n := NewNormalizer()
	in := `{"id":"01JZ0000000000000000000009","tool":"tu_01JZ0000000000000000000003","again":"tu_01JZ0000000000000000000003",` +
		`"other":"tu_01JZ0000000000000000000001","req":"req_01JZ0000000000000000000003","provider":"toolu_01JZ0000000000000000000003","short":"tu_1"}`
	want := `{"id":"msg_1","tool":"tu_1","again":"tu_1","other":"tu_2","req":"req_1","provider":"toolu_01JZ0000000000000000000003","short":"tu_1"}`
	if got := string(n.Apply([]byte(in))); got != want {
		t.Errorf("apply =\n%s\nwant\n%s", got, want)
	}
	// Numbering continues across files of one run.
	if got := string(n.Apply([]byte(`tu_01JZ0000000000000000000001 tu_01JZ000000000000000000000A`))); got != "tu_2 tu_3" {
		t.Errorf("second file: %s", got)
	}
}
