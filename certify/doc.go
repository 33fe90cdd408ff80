// Package certify certifies an adapter against a conformance suite: it
// runs every scenario × model of the suite that talks to the adapter's
// provider through the adapter under test, with the harness's own engine
// (the same checks and goldens as `conform run`), and records the outcome
// as a Report, written as a verifiable results bundle.
//
//	plan, err := certify.NewPlan(certify.Target{Provider: "anthropic", New: myadapter.New}, certify.Options{})
//	caps, err := plan.Capabilities()
//	for _, run := range plan.Runs {
//		results = append(results, plan.Exec(ctx, run))
//	}
//	report := plan.NewReport(results, caps, started, nil)
//	digest, err := certify.WriteBundle("certification.tar.gz", report)
//	...
//	v, err := certify.Verify("certification.tar.gz", certify.VerifyOptions{Digest: digest})
//
// Package conformtest wraps this for go test, and `conform certify` for
// adapters in any language (package execadapter, over the replay server).
//
// The suite is Builtin (the scenarios, cassettes and goldens embedded in
// metis) or a directory (DirSuite); its content hash identifies it, and
// certify/suites.json names the hashes of published suite versions.
// Every run belongs to one profile (ProfileOf), so that a certificate says
// what it covers; the report schema is report.schema.json.
package certify
