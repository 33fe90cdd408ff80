package certify

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeCheckout writes a checkout with a one-file suite and suites.json
// holding doc, and returns its root.
func fakeCheckout(t *testing.T, doc string) string {
	t.Helper()
	root := t.TempDir()
	for name, data := range map[string]string{
		"scenarios/a/x.yaml":                  "id: a/x",
		"cassettes/anthropic/a/x.yaml":        "interactions: []",
		"goldens/a/x/anthropic/m/events.json": "[]",
		SuitesFile:                            doc,
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Publish appends an entry with the checkout's hash, keeps the entries
// before it, and refuses what would change the published list: a
// version or a suite already published, a reserved or malformed name.
func TestPublish(t *testing.T) {
	old := PublishedSuite{Version: "0.9", Hash: "sha256:" + strings.Repeat("ab", 32), Date: "2026-01-01"}
	root := fakeCheckout(t, `{"suites": [{"version": "0.9", "hash": "`+old.Hash+`", "date": "2026-01-01"}]}`)
	hash, err := DirSuite(root).Hash()
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]string{"scenarios": "t1", "cassettes": "t2", "goldens": "t3"}
	got, err := Publish(root, "1", "2026-11-25", trees)
	if err != nil {
		t.Fatal(err)
	}
	want := PublishedSuite{Version: "1", Hash: hash, Date: "2026-11-25", Trees: trees}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(filepath.Join(root, SuitesFile))
	if err != nil {
		t.Fatal(err)
	}
	list, err := parsePublished(data)
	if err != nil {
		t.Fatalf("Publish wrote a suites.json that does not parse: %v\n%s", err, data)
	}
	if diff := cmp.Diff([]PublishedSuite{old, want}, list); diff != "" {
		t.Errorf("suites.json (-want +got):\n%s", diff)
	}
	for name, tc := range map[string]struct{ version, want string }{
		"same version": {"1", "suite version 1 is published already"},
		"same suite":   {"2", "this suite (" + hash + ") is published already, as version 1"},
		"reserved":     {Unpublished, "not \"unpublished\""},
		"malformed":    {"1 beta", "want letters, digits"},
	} {
		if _, err := Publish(root, tc.version, "2026-11-26", nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tc.want)
		}
	}
	after, _ := os.ReadFile(filepath.Join(root, SuitesFile))
	if !bytes.Equal(after, data) {
		t.Errorf("a refused Publish changed suites.json:\n%s", after)
	}
	if _, err := Publish(t.TempDir(), "1", "2026-11-25", nil); err == nil || !strings.Contains(err.Error(), "publish from the repository's root") {
		t.Errorf("Publish outside a checkout: %v", err)
	}
}

// gitSuiteHash computes the suite hash of git trees (PublishedSuite.Trees)
// in the repository at dir: ok is false when git or a tree is missing
// (a clone without that history).
func gitSuiteHash(t *testing.T, dir string, trees map[string]string) (hash string, ok bool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return "", false
	}
	var files []ManifestLine
	var blobs []string
	for _, part := range []string{"scenarios", "cassettes", "goldens"} {
		tree := trees[part]
		if tree == "" {
			t.Fatalf("the entry has no %s tree", part)
		}
		out, err := exec.Command("git", "-C", dir, "ls-tree", "-r", "-z", tree).Output()
		if err != nil {
			return "", false
		}
		for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			meta, name, _ := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if len(f) != 3 || f[1] != "blob" {
				continue
			}
			files = append(files, ManifestLine{Path: part + "/" + name})
			blobs = append(blobs, f[2])
		}
	}
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(blobs, "\n") + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(out)
	for i := range files {
		head, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			t.Fatalf("git cat-file: %q", head)
		}
		n, _ := strconv.Atoi(f[2])
		h := sha256.New()
		if _, err := io.CopyN(h, br, int64(n)); err != nil {
			t.Fatal(err)
		}
		br.ReadByte() // the newline after the content
		files[i].SHA256 = hex.EncodeToString(h.Sum(nil))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return HashManifest(files), true
}

// Every published suite version can be recomputed from the git trees it
// names, in a clone with that history: a version's content never
// changes, so a bundle certified against it verifies forever.
func TestPublishedSuitesReproduce(t *testing.T) {
	for _, p := range Published() {
		got, ok := gitSuiteHash(t, "..", p.Trees)
		if !ok {
			t.Logf("suite %s: its trees are not in this clone (no git, or a shallow clone); not recomputed", p.Version)
			continue
		}
		if got != p.Hash {
			t.Errorf("published suite %s has hash %s, but its trees %v hash %s: certify/suites.json was edited; published entries never change", p.Version, p.Hash, p.Trees, got)
		}
	}
}

// The suite in this checkout is a published version or an unreleased
// development suite; scenario changes between releases are not held up.
// A release (METIS_RELEASE set, as .ci/run does on a tagged commit) must
// certify against a published version.
func TestSuiteRelease(t *testing.T) {
	info, err := DirSuite("..").Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != Unpublished {
		t.Logf("the suite is published version %s", info.Version)
		return
	}
	msg := fmt.Sprintf("the suite is unreleased (dev), %s, not a published version (published: %s); to publish it, commit the suite, then run\n\tgo run ./cmd/conform certify --publish VERSION\nand commit certify/suites.json", info.Hash, publishedNames())
	if os.Getenv("METIS_RELEASE") != "" {
		t.Fatal(msg)
	}
	t.Log(msg)
}

// The published list only grows: no commit in this clone's history
// removed or changed a published entry (an appended entry only adds a
// comma to the one before it).
func TestPublishedSuitesOnlyGrow(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("no git: the history of certify/suites.json is not checked")
		return
	}
	out, err := exec.Command("git", "-C", "..", "log", "-p", "--format=commit %h", "--", SuitesFile).Output()
	if err != nil {
		t.Logf("no history of %s here (%v): not checked", SuitesFile, err)
		return
	}
	var commit string
	removed, added := map[string]bool{}, map[string]bool{}
	check := func() {
		for line := range removed {
			if !added[line] {
				t.Errorf("commit %s removed or changed the published entry %s; published entries never change (docs/certify.md: Suite versions)", commit, line)
			}
		}
		clear(removed)
		clear(added)
	}
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "commit "):
			check()
			commit = strings.TrimPrefix(line, "commit ")
		case strings.HasPrefix(line, `-    {"version"`):
			removed[strings.TrimSuffix(line[1:], ",")] = true
		case strings.HasPrefix(line, `+    {"version"`):
			added[strings.TrimSuffix(line[1:], ",")] = true
		}
	}
	check()
}
