package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// module is metis's module path.
const module = "github.com/metis-llm/metis"

// stubDir holds, for the placeholder packages of the docs' whole files
// (example.com/myadapter: the reader's own code), a small stand-in with
// the shape the docs describe, type-checked from source.
const stubDir = "testdata/stubs"

// goChecker type-checks Go blocks against the module's packages, read
// from the export data `go list -export` writes.
type goChecker struct {
	fset    *token.FileSet
	exports map[string]string // import path → export data file
	names   map[string]string // package name → import path, for fragments
	gc      types.Importer
	stubs   map[string]*types.Package
}

// newGoChecker lists the module's packages and the standard library by
// name, and builds the export data of the packages the blocks import.
func newGoChecker(t *testing.T, blocks []block) *goChecker {
	t.Helper()
	c := &goChecker{fset: token.NewFileSet(), exports: map[string]string{}, names: map[string]string{}, stubs: map[string]*types.Package{}}
	// Names: metis's importable packages win over the standard library's
	// (adapters/driver over database/sql/driver); a name two standard
	// packages share is left out, so a fragment using it must be a whole file.
	std := map[string][]string{}
	for _, l := range goList(t, "{{.ImportPath}} {{.Name}}", "std") {
		path, name, _ := strings.Cut(l, " ")
		if !strings.Contains(path, "internal") && !strings.HasPrefix(path, "vendor/") && name != "main" {
			std[name] = append(std[name], path)
		}
	}
	for name, paths := range std {
		if len(paths) == 1 {
			c.names[name] = paths[0]
		}
	}
	for _, l := range goList(t, "{{.ImportPath}} {{.Name}}", "./...") {
		path, name, _ := strings.Cut(l, " ")
		if !strings.Contains(path, "/internal/") && name != "main" && !strings.HasSuffix(name, "_test") {
			c.names[name] = path
		}
	}
	need := map[string]bool{}
	for _, b := range blocks {
		for _, p := range c.imports(b) {
			if !strings.HasPrefix(p, "example.com/") {
				need[p] = true
			}
		}
	}
	// Stubs import metis packages too.
	stubs, _ := filepath.Glob(filepath.Join(stubDir, "*", "*", "*.go"))
	for _, f := range stubs {
		file, err := parser.ParseFile(c.fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range file.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			need[p] = true
		}
	}
	args := []string{"-export", "-deps"}
	for p := range need {
		args = append(args, p)
	}
	slices.Sort(args[2:])
	for _, l := range goList(t, "{{.ImportPath}} {{.Export}}", args...) {
		path, export, _ := strings.Cut(l, " ")
		c.exports[path] = export
	}
	c.gc = importer.ForCompiler(c.fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := c.exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s (go list -export)", path)
		}
		return os.Open(f)
	})
	return c
}

var (
	goOnce   sync.Once
	goShared *goChecker
)

// goChecker1 returns the one goChecker of the test binary, over the Go
// blocks of the docs and of testdata/broken: listing the packages and
// building their export data is the slow part, done once.
func goChecker1(t *testing.T) *goChecker {
	t.Helper()
	goOnce.Do(func() {
		blocks := blocksOf(pages(t), "go")
		blocks = append(blocks, blocksOf(brokenPages(t), "go")...)
		goShared = newGoChecker(t, blocks)
	})
	if goShared == nil {
		t.Fatal("the Go checker could not be built (see the first test that asked for it)")
	}
	return goShared
}

// goList runs `go list -f format args…` in the repository and returns its
// lines.
func goList(t *testing.T, format string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", format}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// Import implements types.Importer: stubs from source, the rest from
// export data.
func (c *goChecker) Import(path string) (*types.Package, error) {
	if p, ok := c.stubs[path]; ok {
		return p, nil
	}
	dir := filepath.Join(stubDir, filepath.FromSlash(path))
	if _, err := os.Stat(dir); err != nil {
		return c.gc.Import(path)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var parsed []*ast.File
	for _, f := range files {
		pf, err := parser.ParseFile(c.fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, pf)
	}
	pkg, err := (&types.Config{Importer: c}).Check(path, c.fset, parsed, nil)
	if err != nil {
		return nil, fmt.Errorf("stub %s: %w", path, err)
	}
	c.stubs[path] = pkg
	return pkg, nil
}

// isWholeFile reports whether a Go block is a whole file: it starts, after
// comments, with a package clause.
func isWholeFile(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return strings.HasPrefix(l, "package ")
	}
	return false
}

// elisionRE finds the "..." that stand for elided code in a fragment: not
// a variadic parameter (`a ...int`) nor a spread argument (`xs...`).
var elisionRE = regexp.MustCompile(`(^|[^\w)\]])\.\.\.([^\w]|$)`)

// imports returns the import paths a block needs: a whole file's own, or
// for a fragment the known packages it names as qualifiers.
func (c *goChecker) imports(b block) []string {
	if isWholeFile(b.text) {
		f, err := parser.ParseFile(token.NewFileSet(), b.where(), b.text, parser.ImportsOnly)
		if err != nil {
			return nil
		}
		var out []string
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			out = append(out, p)
		}
		return out
	}
	_, f, err := fragmentFile(b, nil)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				if p, ok := c.names[id.Name]; ok {
					seen[p] = true
				}
			}
		}
		return true
	})
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// fragmentFile wraps a fragment in a file of package fragment importing
// imports: as declarations when it parses as such, else as the body of a
// function. A //line directive keeps positions those of the docs.
func fragmentFile(b block, imports []string) (string, *ast.File, error) {
	body := elisionRE.ReplaceAllString(b.text, "$1$2")
	var head strings.Builder
	head.WriteString("package fragment\n")
	for _, p := range imports {
		fmt.Fprintf(&head, "import %q\n", p)
	}
	line := fmt.Sprintf("//line %s:%d\n", b.file, b.line+1)
	decls := head.String() + line + body
	if f, err := parser.ParseFile(token.NewFileSet(), "", decls, parser.SkipObjectResolution); err == nil {
		return decls, f, nil
	}
	stmts := head.String() + "func _() {\n" + line + body + "\n}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", stmts, parser.SkipObjectResolution)
	if err != nil {
		// Report the statement form's error, with the block's own lines.
		return "", nil, fmt.Errorf("neither declarations nor statements: %w", err)
	}
	return stmts, f, nil
}

// placeholderRE matches the errors a fragment may have: names it uses but
// does not define (ctx, msgs, reg: the reader's own), and the imports and
// variables its excerpt leaves unused.
var placeholderRE = regexp.MustCompile(`^(undefined: [\pL_][\pL\pN_]*|declared and not used: .*|".*" imported and not used|missing return)$`)

// check type-checks one block and returns its errors, each naming the
// docs file and line.
func (c *goChecker) check(b block) []string {
	whole := isWholeFile(b.text)
	src := b.text
	if whole {
		src = fmt.Sprintf("//line %s:%d\n", b.file, b.line+1) + b.text
	} else {
		s, _, err := fragmentFile(b, c.imports(b))
		if err != nil {
			return []string{fmt.Sprintf("%s: a Go fragment that does not parse: %v", b.where(), err)}
		}
		src = s
	}
	f, err := parser.ParseFile(c.fset, "block.go", src, parser.ParseComments) // the //line directive names the docs file
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	conf := types.Config{Importer: c, Error: func(err error) {
		if te, ok := err.(types.Error); ok && !whole && placeholderRE.MatchString(te.Msg) {
			return
		}
		errs = append(errs, err.Error())
	}}
	pkg, _ := conf.Check(f.Name.Name, c.fset, []*ast.File{f}, nil)
	if !whole && pkg != nil {
		errs = append(errs, c.sameInterfaces(b, pkg)...)
	}
	return errs
}

// sameInterfaces holds a fragment that restates an interface of a package
// it names — `type Provider interface {…}` beside driver.Model is
// driver.Provider — to that interface's methods and signatures, so the
// restatement cannot drift from the code.
func (c *goChecker) sameInterfaces(b block, pkg *types.Package) []string {
	var errs []string
	for _, name := range pkg.Scope().Names() {
		local, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || !local.Exported() {
			continue
		}
		li, ok := local.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		for _, imp := range pkg.Imports() {
			real, ok := imp.Scope().Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			ri, ok := real.Type().Underlying().(*types.Interface)
			if !ok || types.Identical(li, ri) {
				continue
			}
			errs = append(errs, fmt.Sprintf("%s: interface %s is not %s.%s: %s", b.where(), name, imp.Name(), name, interfaceDiff(li, ri)))
		}
	}
	return errs
}

// interfaceDiff names the methods two interfaces do not share, or whose
// signatures differ.
func interfaceDiff(doc, real *types.Interface) string {
	var diffs []string
	sig := func(i *types.Interface) map[string]string {
		out := map[string]string{}
		for m := range i.Methods() {
			out[m.Name()] = types.TypeString(m.Type(), nil)
		}
		return out
	}
	d, r := sig(doc), sig(real)
	for name, s := range r {
		switch ds, ok := d[name]; {
		case !ok:
			diffs = append(diffs, "the docs leave out "+name+s)
		case ds != s:
			diffs = append(diffs, fmt.Sprintf("%s is %s in the code, %s in the docs", name, s, ds))
		}
	}
	for name, s := range d {
		if _, ok := r[name]; !ok {
			diffs = append(diffs, "the code has no "+name+s)
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "; ")
}

// TestGoBlocks type-checks every Go block of the docs: a whole file (it
// starts with a package clause) as it stands; a fragment wrapped in a
// file that imports the packages it names, where only its placeholders
// (names it does not define) may be undefined.
func TestGoBlocks(t *testing.T) {
	blocks := blocksOf(pages(t), "go")
	if len(blocks) < 5 {
		t.Fatalf("found %d Go blocks; the block reader finds too few", len(blocks))
	}
	c := goChecker1(t)
	for _, b := range blocks {
		t.Run(b.where(), func(t *testing.T) {
			for _, e := range c.check(b) {
				t.Error(e)
			}
		})
	}
}
