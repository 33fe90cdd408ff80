package shim

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseKnown(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Known
		err      string
	}{
		{"empty", "", Known{}, ""},
		{"comments", "# header\n\n# more\n", Known{}, ""},
		{"one", "basic/plain-text/anthropic:claude-sonnet-4-6\tno served model\n", Known{"basic/plain-text/anthropic:claude-sonnet-4-6": "no served model"}, ""},
		{"crlf", "a/b\treason\r\n", Known{"a/b": "reason"}, ""},
		{"no tab", "a/b reason\n", nil, "x.txt:1: want <run name> TAB <reason>"},
		{"no reason", "# c\na/b\t \n", nil, "x.txt:2: run a/b has no reason"},
		{"twice", "a/b\tr\na/b\ts\n", nil, "x.txt:2: run a/b listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKnown(strings.NewReader(tc.in), "x.txt")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: got %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestWriteKnownRoundTrip(t *testing.T) {
	k := Known{"z/run/m:1": "reason  with\nspaces", "a/run/m:2": "other"}
	out := WriteKnown(k, "line one\nline two")
	if !bytes.HasPrefix(out, []byte("# line one\n# line two\na/run/m:2\tother\n")) {
		t.Fatalf("unexpected rendering:\n%s", out)
	}
	back, err := ParseKnown(bytes.NewReader(out), "round trip")
	if err != nil {
		t.Fatal(err)
	}
	if back["z/run/m:1"] != "reason with spaces" || back["a/run/m:2"] != "other" || len(back) != 2 {
		t.Fatalf("round trip gave %v", back)
	}
}

func FuzzParseKnown(f *testing.F) {
	f.Add("a/b\treason\n# c\n\nx/y\tz\n")
	f.Add("a\t\n")
	f.Add("\t\t\t")
	f.Fuzz(func(t *testing.T, in string) {
		k, err := ParseKnown(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		again, err := ParseKnown(bytes.NewReader(WriteKnown(k, "h")), "fuzz rendered")
		if err != nil {
			t.Fatalf("a parsed list does not parse once rendered: %v", err)
		}
		if len(again) != len(k) {
			t.Fatalf("%d runs, %d after a round trip", len(k), len(again))
		}
	})
}
