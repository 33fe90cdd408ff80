package certify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/internal/atomicfile"
)

// Bundle file names. A bundle is a directory, or the same files in a
// gzip'd tar:
//
//	MANIFEST.sha256   every other file's SHA-256, as `sha256sum` prints it
//	report.json       the Report (schema ReportSchema)
//	junit.xml         one testcase per run
//	summary.md        the certificate in Markdown
//	evidence/<scenario-id>/<provider>/<model-name>/requests.json, events.json
//	                  the wire requests and event trace of each failed run
const (
	BundleManifest = "MANIFEST.sha256"
	BundleReport   = "report.json"
	BundleJUnit    = "junit.xml"
	BundleSummary  = "summary.md"
	bundleEvidence = "evidence"
)

// IsArchive reports whether a bundle path names a gzip'd tar (.tar.gz
// or .tgz) rather than a directory.
func IsArchive(p string) bool {
	return strings.HasSuffix(p, ".tar.gz") || strings.HasSuffix(p, ".tgz")
}

// WriteBundle writes r as a results bundle at p: a gzip'd tar when p ends
// in .tar.gz or .tgz, else a directory (replacing one already there). The
// write is atomic: a failure leaves any earlier bundle at p as it was. It
// returns the bundle's digest, which `conform verify --digest` checks:
// the SHA-256 of the archive, or of MANIFEST.sha256 for a directory.
func WriteBundle(p string, r *Report) (digest string, err error) {
	files, err := bundleFiles(r)
	if err != nil {
		return "", err
	}
	if IsArchive(p) {
		data, err := packArchive(files)
		if err != nil {
			return "", err
		}
		if err := atomicfile.Write(p, data); err != nil {
			return "", fmt.Errorf("certify: %w", err)
		}
		return digestOf(data), nil
	}
	if err := writeDirAtomic(p, files); err != nil {
		return "", err
	}
	return digestOf(files[BundleManifest]), nil
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// bundleFiles renders every file of r's bundle, the manifest included.
func bundleFiles(r *Report) (map[string][]byte, error) {
	files := map[string][]byte{}
	runs := make([]harness.ScenarioResult, 0, len(r.results))
	for i := range r.Runs {
		rr := &r.Runs[i]
		rr.Evidence = nil
		for _, name := range slices.Sorted(maps.Keys(rr.evidence)) {
			p := path.Join(bundleEvidence, rr.Scenario, evidenceDir(rr.Model), name)
			files[p] = rr.evidence[name]
			rr.Evidence = append(rr.Evidence, p)
		}
	}
	for _, res := range r.results {
		if res.Status != "" {
			runs = append(runs, res)
		}
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("certify: encoding the report: %w", err)
	}
	files[BundleReport] = append(js, '\n')
	junit, err := report.JUnit(&harness.Result{Runs: runs, Duration: time.Duration(r.DurationMS * float64(time.Millisecond))})
	if err != nil {
		return nil, err
	}
	files[BundleJUnit] = junit
	files[BundleSummary] = []byte(r.Markdown())
	files[BundleManifest] = manifest(files)
	return files, nil
}

// evidenceDir is "<provider>/<model-name>" for a model id.
func evidenceDir(model string) string {
	provider, name, _ := strings.Cut(model, ":")
	return provider + "/" + name
}

// manifest renders MANIFEST.sha256 for files (itself excluded): one
// "<sha256>  <path>" line per file, sorted by path.
func manifest(files map[string][]byte) []byte {
	var sb strings.Builder
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if p == BundleManifest {
			continue
		}
		sum := sha256.Sum256(files[p])
		sb.WriteString(hex.EncodeToString(sum[:]))
		sb.WriteString("  ")
		sb.WriteString(p)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// packArchive is the gzip'd tar of files: sorted paths, regular files
// only, mode 0644, owner 0, time zero. Its gzip header carries, in an
// extra field, the SHA-256 of everything after the header, so that
// Verify sees any changed byte: the manifest covers the files, the
// gzip CRC only the uncompressed tar, and deflate has bits no decoder
// reads.
func packArchive(files map[string][]byte) ([]byte, error) {
	tarball, err := packTar(files)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	zw.OS = gzipOS
	zw.Extra = make([]byte, 4+sha256.Size)
	copy(zw.Extra, gzipHeader[12:16])
	if _, err := zw.Write(tarball); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	sum := sha256.Sum256(data[gzipHeaderLen:])
	copy(data[len(gzipHeader):gzipHeaderLen], sum[:])
	return data, nil
}

// gzipOS is the gzip header's OS byte: unknown.
const gzipOS = 255

// gzipHeader is how every bundle archive begins: the gzip magic, deflate,
// an extra field (FEXTRA) and nothing else, no time, no extra flags, OS
// unknown; the extra field's length (36), and its one subfield "MS"
// ("metis SHA-256") of 32 bytes. The digest follows, to gzipHeaderLen.
var gzipHeader = []byte{0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, gzipOS, 4 + sha256.Size, 0, 'M', 'S', sha256.Size, 0}

const gzipHeaderLen = 16 + sha256.Size

func packTar(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: 0o644, Size: int64(len(files[p])), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("certify: archiving %s: %w", p, err)
		}
		if _, err := tw.Write(files[p]); err != nil {
			return nil, fmt.Errorf("certify: archiving %s: %w", p, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeDirAtomic writes files into a temporary directory beside p and
// renames it to p, moving any directory already at p aside first and
// removing it last.
func writeDirAtomic(p string, files map[string][]byte) (err error) {
	parent := filepath.Dir(p)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fp := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(fp), 0o755); err != nil {
			return fmt.Errorf("certify: %w", err)
		}
		if err := os.WriteFile(fp, files[name], 0o644); err != nil {
			return fmt.Errorf("certify: %w", err)
		}
	}
	var old string
	if fi, err := os.Lstat(p); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("certify: %s exists and is not a directory", p)
		}
		if _, err := os.Stat(filepath.Join(p, BundleManifest)); err != nil {
			return fmt.Errorf("certify: %s exists and is not a bundle (no %s): not replacing it", p, BundleManifest)
		}
		old = tmp + ".old"
		if err := os.Rename(p, old); err != nil {
			return fmt.Errorf("certify: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("certify: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		if old != "" {
			os.Rename(old, p)
		}
		return fmt.Errorf("certify: %w", err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}
