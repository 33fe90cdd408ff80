package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdVerify is `conform verify`: it checks a results bundle.
func cmdVerify(_ context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform verify", "BUNDLE", "Check a results bundle from `conform certify` (a directory or a .tar.gz): that it is complete,\n"+
		"that no byte of it was changed since it was written (the manifest's hashes, an archive's own digest),\n"+
		"that its report is valid and adds up, and that it was certified against a published suite version or\n"+
		"this conform's own suite.")
	c.Notes = "exit status: 0 the bundle verifies, 1 it does not, 2 usage error."
	digest := c.String("digest", "", "require the bundle's `DIGEST` (sha256:…), as `conform certify` printed it")
	published := c.Bool("published", false, "require a published suite version, not this conform's own unreleased (dev) suite")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() != 1 {
		return c.Fail(stderr, "want exactly one BUNDLE")
	}
	v, err := certify.Verify(c.Arg(0), certify.VerifyOptions{Digest: *digest, Published: *published})
	var ve *certify.VerifyError
	if errors.As(err, &ve) {
		fmt.Fprintln(stdout, err)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintln(stderr, "conform verify:", err)
		return exitUsage
	}
	r := v.Report
	fmt.Fprintf(stdout, "bundle %s verifies: %d files, digest %s\n", c.Arg(0), v.Files, v.Digest)
	fmt.Fprintf(stdout, "%s: %s %s (%s, provider %s)\n", r.Verdict(), r.Adapter.Name, r.Adapter.Version, r.Adapter.Kind, r.Adapter.Provider)
	fmt.Fprintf(stdout, "suite %s (%s), metis %s, %s\n", r.Suite.Hash, v.Suite, r.Metis.Version, r.Started.Format("2006-01-02 15:04 UTC"))
	return exitOK
}
