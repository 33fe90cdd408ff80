package certify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/internal/schemacheck"
)

// ReportSchemaJSON is report.schema.json, the JSON Schema of report.json.
//
//go:embed report.schema.json
var ReportSchemaJSON []byte

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Digest, when set, is the digest WriteBundle returned ("sha256:…");
	// the bundle must have it.
	Digest string
	// Published requires the bundle's suite to be a published suite
	// version; otherwise the suite this metis embeds is accepted too.
	Published bool
	// Own is the suite this metis embeds; nil means Builtin().
	Own *Suite
}

// Verification is what Verify found in a sound bundle.
type Verification struct {
	// Digest is the bundle's digest (see WriteBundle).
	Digest string
	Report *Report
	// Suite says how the bundle's suite was recognized: "published suite
	// <version> (<date>)", or OwnDevSuite.
	Suite string
	// Files is how many files the manifest lists.
	Files int
}

// VerifyError lists every problem Verify found.
type VerifyError struct {
	Bundle   string
	Problems []string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("bundle %s does not verify:\n  %s", e.Bundle, strings.Join(e.Problems, "\n  "))
}

// Verify checks the bundle at p (a directory or a .tar.gz): that it is
// complete (every file the manifest lists, and nothing else), untouched
// (every hash matches, the manifest is in its one form, an archive
// matches the digest in its gzip header: changing any byte fails), that
// report.json is
// valid against its schema and agrees with itself, that junit.xml and
// summary.md are there, and that the suite it was certified against is a
// published suite version (or, unless opts.Published, this metis's own).
// A problem is a *VerifyError listing them all.
func Verify(p string, opts VerifyOptions) (*Verification, error) {
	v := &verifier{bundle: p}
	files, digest := v.read(p)
	return v.check(files, digest, opts)
}

// check verifies a bundle's files (nil when they could not be read).
func (v *verifier) check(files map[string][]byte, digest string, opts VerifyOptions) (*Verification, error) {
	if opts.Digest != "" && digest != "" && opts.Digest != digest {
		v.problem("the bundle's digest is %s, want %s", digest, opts.Digest)
	}
	out := &Verification{Digest: digest}
	if files != nil {
		var intact map[string]bool
		out.Files, intact = v.checkManifest(files)
		if intact[BundleReport] {
			out.Report = v.checkReport(files)
		}
		if out.Report != nil {
			out.Suite = v.checkSuite(out.Report.Suite, opts)
		}
	}
	if len(v.problems) > 0 {
		return out, &VerifyError{Bundle: v.bundle, Problems: v.problems}
	}
	return out, nil
}

type verifier struct {
	bundle   string
	problems []string
}

func (v *verifier) problem(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

// read loads every file of the bundle and its digest.
func (v *verifier) read(p string) (map[string][]byte, string) {
	fi, err := os.Stat(p)
	if err != nil {
		v.problem("%v", err)
		return nil, ""
	}
	if !fi.IsDir() {
		data, err := os.ReadFile(p)
		if err != nil {
			v.problem("%v", err)
			return nil, ""
		}
		return v.unpack(data), digestOf(data)
	}
	files := map[string][]byte{}
	root := os.DirFS(p)
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			v.problem("%s is not a regular file", name)
			return nil
		}
		data, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		files[name] = data
		return nil
	})
	if err != nil {
		v.problem("reading the bundle: %v", err)
		return nil, ""
	}
	return files, digestOf(files[BundleManifest])
}

// unpack reads a gzip'd tar bundle, after checking that its header is
// the one WriteBundle writes and its digest covers the rest.
func (v *verifier) unpack(data []byte) map[string][]byte {
	if len(data) < gzipHeaderLen || !bytes.HasPrefix(data, gzipHeader) {
		v.problem("not a bundle archive: the gzip header is not the one `conform certify` writes")
		return nil
	}
	if sum := sha256.Sum256(data[gzipHeaderLen:]); !bytes.Equal(sum[:], data[len(gzipHeader):gzipHeaderLen]) {
		v.problem("the archive was changed: its content does not match the SHA-256 in its gzip header")
		return nil
	}
	br := bytes.NewReader(data)
	zr, err := gzip.NewReader(br)
	if err != nil {
		v.problem("gzip: %v", err)
		return nil
	}
	zr.Multistream(false)
	tarball, err := io.ReadAll(zr)
	if err != nil {
		v.problem("gzip: %v", err)
		return nil
	}
	if br.Len() > 0 {
		v.problem("%d bytes follow the archive's gzip stream", br.Len())
		return nil
	}
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			v.problem("tar: %v", err)
			return nil
		}
		if hdr.Typeflag != tar.TypeReg {
			v.problem("tar: %s is not a regular file", hdr.Name)
			return nil
		}
		if !fs.ValidPath(hdr.Name) {
			v.problem("tar: %q is not a valid bundle path", hdr.Name)
			return nil
		}
		if _, dup := files[hdr.Name]; dup {
			v.problem("tar: %s appears twice", hdr.Name)
			return nil
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			v.problem("tar: %s: %v", hdr.Name, err)
			return nil
		}
		files[hdr.Name] = b
	}
	return files
}

var manifestLine = regexp.MustCompile(`^([0-9a-f]{64})  ([^\x00-\x1f]+)$`)

// checkManifest checks MANIFEST.sha256 against the files and returns
// how many it lists and which of them are intact.
func (v *verifier) checkManifest(files map[string][]byte) (int, map[string]bool) {
	intact := map[string]bool{}
	m, ok := files[BundleManifest]
	if !ok {
		v.problem("%s is missing", BundleManifest)
		return 0, intact
	}
	if len(m) == 0 || m[len(m)-1] != '\n' {
		v.problem("%s: does not end with a newline", BundleManifest)
	}
	listed := map[string]bool{}
	prev := ""
	for i, line := range strings.Split(strings.TrimSuffix(string(m), "\n"), "\n") {
		g := manifestLine.FindStringSubmatch(line)
		if g == nil {
			v.problem("%s:%d: want \"<sha256>  <path>\", got %q", BundleManifest, i+1, line)
			continue
		}
		sum, name := g[1], g[2]
		if name <= prev {
			v.problem("%s:%d: %s is out of order or repeated", BundleManifest, i+1, name)
		}
		prev = name
		listed[name] = true
		data, ok := files[name]
		if !ok {
			v.problem("%s is missing (%s:%d lists it)", name, BundleManifest, i+1)
			continue
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) != sum {
			v.problem("%s was changed: its SHA-256 is %x, the manifest says %s", name, got, sum)
			continue
		}
		intact[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if name != BundleManifest && !listed[name] {
			v.problem("%s is not in the manifest", name)
		}
	}
	for _, name := range []string{BundleReport, BundleJUnit, BundleSummary} {
		if !listed[name] {
			v.problem("%s is missing from the manifest", name)
		}
	}
	return len(listed), intact
}

var (
	reportSchemaOnce sync.Once
	reportSchema     *schemacheck.Schema
	reportSchemaErr  error
)

// checkReport validates report.json and its agreement with itself and
// the other files.
func (v *verifier) checkReport(files map[string][]byte) *Report {
	data, ok := files[BundleReport]
	if !ok {
		return nil
	}
	reportSchemaOnce.Do(func() {
		reportSchema, reportSchemaErr = schemacheck.Compile(schemacheck.Resource{URL: "https://github.com/metis-llm/metis/certify/report.schema.json", Data: ReportSchemaJSON})
	})
	if reportSchemaErr != nil {
		v.problem("%v", reportSchemaErr)
		return nil
	}
	if err := reportSchema.ValidateJSON(data); err != nil {
		v.problem("%s is not a valid %s report: %v", BundleReport, ReportSchema, err)
		return nil
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		v.problem("%s: %v", BundleReport, err)
		return nil
	}
	var counts Counts
	profiles := map[string]*ProfileResult{}
	for _, p := range r.Profiles {
		profiles[p.Name] = &ProfileResult{Name: p.Name}
	}
	for i, run := range r.Runs {
		pr := profiles[run.Profile]
		if pr == nil {
			v.problem("%s: runs[%d] (%s [%s]) has profile %s, which the report does not list", BundleReport, i, run.Scenario, run.Model, run.Profile)
			pr = &ProfileResult{}
		}
		switch run.Status {
		case harness.StatusPass:
			counts.Passed++
			pr.Passed++
		case harness.StatusFail:
			counts.Failed++
			pr.Failed++
			if run.FirstFailure == nil {
				v.problem("%s: runs[%d] (%s [%s]) failed but names no first failure", BundleReport, i, run.Scenario, run.Model)
			}
		case harness.StatusSkip:
			counts.Skipped++
			pr.Skipped++
		default:
			counts.NotRun++
			pr.NotRun++
		}
		for _, e := range run.Evidence {
			if _, ok := files[e]; !ok {
				v.problem("%s: runs[%d] names evidence %s, which the bundle lacks", BundleReport, i, e)
			}
		}
	}
	if counts != r.Counts {
		v.problem("%s: counts say %+v, the runs add up to %+v", BundleReport, r.Counts, counts)
	}
	certified := counts.Failed == 0 && counts.NotRun == 0 && counts.Passed > 0
	for _, p := range r.Profiles {
		got := profiles[p.Name]
		if got.Passed != p.Passed || got.Failed != p.Failed || got.Skipped != p.Skipped || got.NotRun != p.NotRun {
			v.problem("%s: profile %s counts do not add up from its runs", BundleReport, p.Name)
		}
		if p.Required && p.Status != ProfileCertified {
			certified = false
		}
	}
	if certified != r.Certified {
		v.problem("%s: certified is %v, but the runs and profiles say %v", BundleReport, r.Certified, certified)
	}
	var junit struct {
		XMLName xml.Name `xml:"testsuites"`
		Tests   int      `xml:"tests,attr"`
	}
	if err := xml.Unmarshal(files[BundleJUnit], &junit); err != nil {
		v.problem("%s: %v", BundleJUnit, err)
	} else if ran := counts.Passed + counts.Failed + counts.Skipped; junit.Tests != ran {
		v.problem("%s has %d tests, the report %d runs that ran", BundleJUnit, junit.Tests, ran)
	}
	if !bytes.Contains(files[BundleSummary], []byte("# metis certification")) {
		v.problem("%s is not a certification summary", BundleSummary)
	}
	return &r
}

// checkSuite recognizes the bundle's suite.
func (v *verifier) checkSuite(s SuiteInfo, opts VerifyOptions) string {
	for _, p := range Published() {
		if p.Version == s.Version {
			if p.Hash != s.Hash {
				v.problem("suite %s has hash %s, but the bundle says %s", p.Version, p.Hash, s.Hash)
				return ""
			}
			return "published suite " + p.Version + " (" + p.Date + ")"
		}
		if p.Hash == s.Hash {
			v.problem("the bundle calls its suite %q, but hash %s is published suite %s", s.Version, s.Hash, p.Version)
			return ""
		}
	}
	if s.Version != Unpublished {
		v.problem("suite version %q is not published (certify/suites.json)", s.Version)
		return ""
	}
	if opts.Published {
		v.problem("the bundle's suite %s is not a published suite version (an unreleased development suite; published: %s)", s.Hash, publishedNames())
		return ""
	}
	h, err := builtinHash()
	if opts.Own != nil {
		h, err = opts.Own.Hash()
	}
	if err != nil {
		v.problem("%v", err)
		return ""
	}
	if h != s.Hash {
		v.problem("the bundle's suite %s is neither a published suite version nor this metis's own (%s)", s.Hash, h)
		return ""
	}
	return OwnDevSuite
}

// OwnDevSuite is VerifyResult.Suite for a bundle certified against this
// metis's own suite when that is not a published version: a development
// checkout between releases (see "Suite versions" in docs/certify.md).
const OwnDevSuite = "this metis's own suite, unreleased (dev): not a published suite version"

// publishedNames lists the published versions, for messages.
func publishedNames() string {
	var names []string
	for _, p := range Published() {
		names = append(names, p.Version)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// builtinHash is Builtin().Hash(), computed once: the embedded suite
// cannot change while the program runs.
var builtinHash = sync.OnceValues(func() (string, error) { return Builtin().Hash() })
