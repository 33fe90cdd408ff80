package record_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/record"
	"github.com/metis-llm/metis/internal/secrets"
)

// fakeSecrets are the made-up credentials the repository's tests use on
// purpose, each allowed only in the file that holds it. Anything else
// key-shaped in a tracked file fails TestCommittedFilesHoldNoSecrets.
var fakeSecrets = map[string][]string{
	"harness/record/scrub_test.go": {
		"sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA", "bearer eyJhbGciOiJIUzI1NiJ9.e30", "AIzaSyA1234567890abcdefghijklmnopqrstuv",
	},
	"harness/record/recorder_test.go": {
		"sk-test-FAKE-KEY-1234567890abcdef", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "Bearer abcdefghijklmnopqrstuvwxyz",
		"AIzaSyA1234567890abcdefghijklmnopqrstuv", "sk-proj-abcdefghijklmnopqrstuvwxyz",
		"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
		"q8Xv2LmZ7rT4kW9pN3bF6hJ1",
	},
	"harness/record/secrets_test.go":    {"sk-proj-abcdefghijklmnopqrstuvwxyz"},
	"harness/record/scrub_body_test.go": {"sk-test-OTHER-KEY-0000000000"},
	"harness/record/write_test.go":      {"sk-test-WRITE-KEY-0123456789abcdef"},
	"harness/record/scrub_echo_test.go": {"AIzaQUERYKEY0123456789abcdefghij", "sk-ant-HEADERKEY0123456789abcdef", "FORMKEY-0123456789abcdefghijklm"},
	// The importer's inputs carry keys on purpose: importing scrubs them.
	"harness/importer/importer_test.go":                                             {"sk-proj-TESTONLYnotArealKEYnotArealKEY"},
	"harness/importer/testdata/govcr/v2-openai-responses-function-call-stream.yaml": {"sk-proj-TESTONLYnotArealKEYnotArealKEY0123456789"},
	"harness/importer/testdata/har/mitmproxy-gemini-two-turns.har":                  {"AIzaSyTESTONLY-notArealKEYnotArealKEY12"},
	"harness/importer/testdata/vcrpy/langchain-openai-chat-tool-round-trip.yaml":    {"sk-proj-TESTONLYnotArealKEYnotArealKEY0123456789"},
	"harness/importer/testdata/vcrpy/pydantic-ai-anthropic-thinking-stream.yaml":    {"sk-ant-api03-TESTONLYnotArealKEYnotArealKEYnotArealKEY"},
	"harness/importer/testdata/vcrpy/pydantic-ai-gemini-parsed-body.yaml":           {"AIzaSyTESTONLY-notArealKEYnotArealKEY12"},
	"harness/helpers_test.go":            {"Bearer local-server-needs-no-key"},
	"adapters/bedrock/auth_test.go":      {"bedrock-api-key-1", "bedrock-api-key-2"},
	"adapters/providers/runtime_test.go": {"sk-other-SECRET-4242"},
	"cmd/conform/emulate_test.go":        {"Bearer test-key-not-secret"},
	"adapters/config_test.go": {
		"sk-ant-api03-TESTONLYzN8kqL2vP9xR4mW7bT1cY6hJ3fD5gS0aQ-FAKE", "sk-proj-TESTONLYq8Wm2Lx9Rv4Nc7Tb1Zy6Hk3Jd5Fg0Sa",
		"TESTONLYp7Lw2Qx9Rv4Nc7Tb1Zy6Hk3Jd5Fg0SaB", "AIzaSyTESTONLY0123456789abcdefghijklmno",
	},
	"canonical/errors_redact_test.go": {"sk-ant-api03-Zq9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfE-dcba_AA", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
	// The scripted static token a credentials scenario expects back.
	"scenarios/credentials/static-token-not-resent.yaml": {"Bearer static-vertex-token"},
}

// everyMatch are files made of made-up examples of every shape, the
// recogniser's own tests.
var everyMatch = map[string]bool{
	"internal/secrets/secrets_test.go": true, "internal/secrets/fields_test.go": true,
	"internal/secrets/scrub_test.go": true, "internal/secrets/scan_test.go": true,
}

// TestCommittedFilesHoldNoSecrets scans every file in the repository —
// the tracked files (git ls-files) in a git checkout, else every file
// under the root but .git — for credentials of any shape
// internal/secrets knows, and for the keys in this process's
// environment. Only the test fakes listed in fakeSecrets are allowed,
// each in its own file.
func TestCommittedFilesHoldNoSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a scan of every committed file, with no concurrency for the race detector; go test ./... runs it")
	}
	root := filepath.Join("..", "..")
	var keys []string
	for _, name := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY"} {
		if v := os.Getenv(name); v != "" {
			keys = append(keys, v)
		}
	}
	files := repositoryFiles(t, root)
	require.Greater(t, len(files), 100, "the scan found the repository's files")
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		require.NoError(t, err)
		name = filepath.ToSlash(name)
		for _, k := range keys {
			if bytes.Contains(data, []byte(k)) {
				t.Errorf("secret in a committed file: %s holds the key in the environment", name)
			}
		}
		for _, f := range secrets.Scan(data) {
			if !allowedFake(name, f.Secret) {
				t.Errorf("secret in a committed file: %s:%d: %s (%.4s…); if it is a test fake, list it in fakeSecrets",
					name, f.Line, f.Kind, f.Secret)
			}
		}
	}
}

// allowedFake reports whether fakeSecrets allows secret in file. This
// file, which lists them, holds them all.
func allowedFake(file, secret string) bool {
	if everyMatch[file] {
		return true
	}
	for f, fakes := range fakeSecrets {
		if (f == file || file == "harness/record/secrets_test.go") && slices.Contains(fakes, secret) {
			return true
		}
	}
	return false
}

// repositoryFiles lists the files to scan, relative to root.
func repositoryFiles(t *testing.T, root string) []string {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output(); err == nil && len(out) > 0 {
		return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	}
	var files []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "reports") && path != root {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	}))
	return files
}

func TestScanDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "clean.yaml"), []byte("nothing here\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "b", "leak.json"), []byte("{\n\"k\": \"sk-proj-abcdefghijklmnopqrstuvwxyz\"\n}\n"), 0o644))
	leaks, err := record.ScanDir(dir)
	require.NoError(t, err)
	if diff := cmp.Diff([]record.Leak{{File: filepath.Join(dir, "a", "b", "leak.json"), Line: 2, Kind: "an OpenAI project, admin or service-account key", Redacted: "sk-p…"}}, leaks); diff != "" {
		t.Errorf("leaks mismatch (-want +got):\n%s", diff)
	}

	leaks, err = record.ScanDir(filepath.Join(dir, "missing"))
	assert.NoError(t, err)
	assert.Empty(t, leaks)
}

// Outside a git checkout the scan walks the tree, skipping .git.
func TestRepositoryFilesWithoutGit(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.txt", ".git/config", "sub/b.yaml"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	if diff := cmp.Diff([]string{"a.txt", filepath.Join("sub", "b.yaml")}, repositoryFiles(t, dir)); diff != "" {
		t.Errorf("repositoryFiles(t, dir) mismatch (-want +got):\n%s", diff)
	}
}
