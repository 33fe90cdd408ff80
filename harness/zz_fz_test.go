package harness_test
import ("path/filepath";"testing";"time";"os";"fmt";"github.com/metis-llm/metis/harness")
func FuzzZZ(f *testing.F){ f.Add([]byte("id: x\ntitle: y\nmodels: [a:b]\nsteps: [{user: hi}]")); f.Add([]byte("a: &x [*x]")); fs, _ := filepath.Glob("../scenarios/*/*.yaml"); for _, p := range fs { d, _ := os.ReadFile(p); f.Add(d) }
f.Fuzz(func(t *testing.T, data []byte){ st := time.Now(); harness.Parse("f", data); if d := time.Since(st); d > 200*time.Millisecond { fl, _ := os.OpenFile("/tmp/slow.txt", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); fmt.Fprintf(fl, "%v %q\n", d, data); fl.Close() } }) }
