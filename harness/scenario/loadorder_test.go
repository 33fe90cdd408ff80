package scenario_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/metis-llm/metis/harness/scenario"
)

// loadOneByOne is LoadDir as it was before the files were parsed in
// parallel: each file read through os.DirFS and parsed in turn, the first
// failure that is not a scenario.Error stopping the walk.
func loadOneByOne(dir string) ([]*scenario.Scenario, error) {
	var (
		out  []*scenario.Scenario
		errs scenario.Errors
	)
	fsys := os.DirFS(dir)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ".yaml" || scenario.DataFiles[p] {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sc, err := scenario.Parse(filepath.Join(dir, filepath.FromSlash(p)), data)
		var e *scenario.Error
		switch {
		case errors.As(err, &e):
			errs = append(errs, e)
		case err != nil:
			return err
		default:
			sc.Rel = p
			out = append(out, sc)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("loading scenarios: %w", err)
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}

// TestLoadDirEqualsOneFileAtATime holds LoadDir, which parses on several
// goroutines, to loading the files one after another: the same scenarios
// in the same order, the same errors (file, line, message) in the same
// order, and the same failure for a file that cannot be read.
func TestLoadDirEqualsOneFileAtATime(t *testing.T) {
	unreadable := t.TempDir()
	for _, name := range []string{"a.yaml", "c.yaml"} {
		data, err := os.ReadFile("../../scenarios/basic/content-filter.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(unreadable, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A link to nothing is listed as a file and fails to read.
	if err := os.Symlink("nowhere.yaml", filepath.Join(unreadable, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"../../scenarios", "testdata/load", "testdata/syntax", unreadable} {
		want, wantErr := loadOneByOne(dir)
		got, gotErr := scenario.LoadDir(dir)
		if len(want) == 0 && wantErr == nil {
			t.Fatalf("%s: loaded nothing; want a directory of scenarios", dir)
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Errorf("%s: LoadDir error\n%v\nwant\n%v", dir, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: LoadDir gave %d scenarios, not the %d loaded one by one (or not equal to them)", dir, len(got), len(want))
		}
	}
	if _, err := scenario.LoadDir(unreadable); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadDir(%s) = %v; want the dangling link's fs.ErrNotExist", unreadable, err)
	}
}
