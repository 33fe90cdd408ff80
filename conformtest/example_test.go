package conformtest_test

import (
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/conformtest"
)

// newAdapter stands for your adapter's constructor: any
// func(adapters.Config) (A, error) whose A is an adapters.Adapter. Here
// it is metis's own Anthropic adapter.
func newAdapter(cfg adapters.Config) (*driver.Adapter, error) { return anthropic.New(cfg) }

// Certify an adapter from its own go test. In your repository the
// function below is a test, func TestConformance(t *testing.T), in a
// _test.go file; `go test -run TestConformance` then runs one subtest per
// scenario × model against the committed cassettes, and
// `go test -run 'TestConformance/tools/'` a family.
func Example() {
	testConformance := func(t *testing.T) {
		report := conformtest.Run(t, "anthropic", newAdapter, // speaks Anthropic's wire format
			conformtest.Adapter("myadapter", "v1.2.0"),
			conformtest.Profiles("core", "streaming", "tools"), // the profiles it must be certified for
			conformtest.Bundle("certification.tar.gz"),         // a results bundle: conform verify checks it
		)
		if !report.Certified {
			t.Log("not certified: see the failing subtests")
		}
	}
	_ = testConformance
}

// Your own wire format brings its own suite and registry (see
// examples/toyprovider): scenarios, cassettes and goldens under testdata/,
// and the models.yaml that names your models.
func ExampleSuite() {
	testCertify := func(t *testing.T, reg *adapters.Registry) {
		conformtest.Run(t, "toy", newAdapter,
			conformtest.Suite(certify.DirSuite("testdata")),
			conformtest.Registry(reg),
			conformtest.OverHTTP(), // also through the replay server on loopback, for an adapter with its own client
		)
	}
	_ = testCertify
}
