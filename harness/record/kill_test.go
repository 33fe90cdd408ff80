package record

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const killHelperEnv = "METIS_RECORD_KILL_HELPER"

func killConfig(dir string) Config {
	return Config{
		ScenarioDir: "../../scenarios", CassetteDir: filepath.Join(dir, "cassettes"), GoldenDir: filepath.Join(dir, "goldens"),
		Emulator: true, Force: true, IDs: []string{"swap/six-turn-alternating"},
		Now: func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) },
	}
}

// TestKilledRecordLeavesNoTempFiles kills a real `record` process (this
// test binary, re-run as a helper) with SIGKILL after it staged the three
// cassettes of a scenario and before it renamed them: the old cassettes
// are byte-identical, and the next run removes the temporary files.
func TestKilledRecordLeavesNoTempFiles(t *testing.T) {
	if dir := os.Getenv(killHelperEnv); dir != "" {
		beforeCommit = func() {
			fmt.Println("staged")
			time.Sleep(time.Hour)
		}
		Run(context.Background(), killConfig(dir)) //nolint:errcheck // killed before it returns
		return
	}
	dir := t.TempDir()
	cassettes := filepath.Join(dir, "cassettes")
	old := map[string]string{}
	for _, prov := range []string{"anthropic", "openai", "gemini"} {
		p := filepath.Join(cassettes, prov, "swap", "six-turn-alternating.yaml")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("# old "+prov+"\n"), 0o644))
		old[p] = "# old " + prov + "\n"
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledRecordLeavesNoTempFiles$")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	staged := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "staged" {
				staged <- true
				return
			}
		}
		staged <- false
	}()
	select {
	case ok := <-staged:
		require.True(t, ok, "the helper ended without staging")
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("the helper never staged")
	}
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait() //nolint:errcheck // killed

	after := files(t, cassettes)
	temps := 0
	for p, data := range after {
		if strings.Contains(filepath.Base(p), tempMarker) {
			temps++
			continue
		}
		assert.Equal(t, old[p], data, p)
	}
	assert.Equal(t, 3, temps, "the kill left the three staged cassettes behind (so the cleanup below is tested)")

	var out bytes.Buffer
	cfg := killConfig(dir)
	cfg.DryRun = false
	cfg.Out = &out
	cfg.IDs = []string{"basic/plain-text"}
	_, err = Run(context.Background(), cfg)
	require.NoError(t, err, out.String())
	for p := range files(t, cassettes) {
		assert.NotContains(t, filepath.Base(p), tempMarker, "left after the next run started")
	}
	assert.Equal(t, 3, strings.Count(out.String(), "left by an interrupted recording"), out.String())
}

func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	}))
	return out
}
