package check

import (
	"strings"
	"testing"
)

// regexpNormalize is what apply did before it scanned: ulidPattern's
// ReplaceAllFunc with the same naming.
func regexpNormalize(n *Normalizer, b []byte) []byte {
	return ulidPattern.ReplaceAllFunc(b, func(id []byte) []byte { return []byte(n.name(id)) })
}

// FuzzNormalizer holds apply's scanner to ulidPattern: the same ids
// replaced by the same names, everything else kept.
func FuzzNormalizer(f *testing.F) {
	id := "01JZ0000000000000000000009"
	for _, s := range []string{
		`{"id":"` + id + `","tool":"tu_` + id + `","req":"req_` + id + `","provider":"toolu_` + id + `"}`,
		"tu_" + id, "req_" + id, id, id + "X", "X" + id, "_" + id, "tu_" + id + "_", "tu__" + id, "ttu_" + id,
		"req_tu_" + id, "tu_req_" + id, id[:25], id + id, id + " " + id, "tu_" + strings.ToLower(id),
		"01JZ000000000000000000000I", "é" + id, id + "é", "-" + id + "-", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := string(regexpNormalize(NewNormalizer(), append([]byte(nil), b...)))
		if got := string(NewNormalizer().Apply(append([]byte(nil), b...))); got != want {
			t.Fatalf("apply(%q) = %q, ulidPattern gives %q", b, got, want)
		}
	})
}

func BenchmarkNormalizer(b *testing.B) {
	data := []byte(strings.Repeat(`{"type":"text.delta","index":0,"text":"Once upon a time, a lighthouse keeper","id":"tu_01JZ0000000000000000000003"}`+"\n", 200))
	b.SetBytes(int64(len(data)))
	for _, impl := range []struct {
		name string
		f    func(*Normalizer, []byte) []byte
	}{{"scan", (*Normalizer).Apply}, {"regexp", regexpNormalize}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.f(NewNormalizer(), data)
			}
		})
	}
}
