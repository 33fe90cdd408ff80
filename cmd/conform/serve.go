package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdServe is `conform serve`: the replay server on loopback, serving
// the suite's cassettes to adapters in any language until interrupted.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform serve", "", "Serve the suite's recorded traffic over HTTP on loopback, in each provider's wire format\n"+
		"(server-sent events one by one), so that an adapter in any language can point its base URL at it.")
	c.Notes = `API (JSON):
  POST   /runs {"scenario": ID, "model": MODEL[, "id": NAME]}   create a run; answers its base URLs
  GET    /runs, GET /runs/ID, DELETE /runs/ID                  inspect or forget runs
  PUT    /runs/ID/fault {inject spec}, DELETE /runs/ID/fault   arm or disarm a fault for the run's next requests
  POST   /runs/ID/sleep {"ms": N}, GET /runs/ID/clock          the run's virtual clock: a sleep returns at once, moving it
  ANY    /runs/ID/PROVIDER/...                                 the provider's own paths, replayed

Runs that are never deleted do not pile up: a run unused for --run-idle (default 1h, on the server's
clock) is forgotten, and beyond --max-runs runs (default 1000) the one unused longest is; a request
to a forgotten run gets 404 saying so.

A request the recording does not match gets 400 {"error": {"type": "replay_mismatch", ...}} naming the
scenario, the nearest interaction and the first differing field.

example:
  conform serve --addr 127.0.0.1:8787 --scenario basic/plain-text --model anthropic:claude-sonnet-4-6
  curl -sN http://127.0.0.1:8787/runs/default/anthropic/v1/messages -H 'anthropic-version: 2023-06-01' -d @request.json`
	addr := c.String("addr", "127.0.0.1:8787", "loopback `ADDR` to listen on (port 0 picks a free one)")
	suiteDir := c.String("suite", "", "serve the suite in `DIR` (scenarios/, cassettes/, goldens/) instead of the built-in one")
	pace := c.Duration("pace", defaultPace, "delay between server-sent events")
	scenario := c.String("scenario", "", "create a run named \"default\" of scenario `ID` at start (with --model)")
	model := c.String("model", "", "the matrix `MODEL` of the --scenario run")
	runIdle := c.Duration("run-idle", certify.ServeRunIdle, "forget a run unused (no request, no control call naming it) for this long; 0 never")
	maxRuns := c.Int("max-runs", certify.ServeMaxRuns, "keep at most `N` runs, forgetting the one unused longest for a new one; 0 no cap")
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.Fail(stderr, fmt.Sprintf("unexpected arguments %q", c.Args()))
	}
	if (*scenario == "") != (*model == "") {
		return c.Fail(stderr, "--scenario and --model go together")
	}
	if *runIdle < 0 || *maxRuns < 0 {
		return c.Fail(stderr, "--run-idle and --max-runs take 0 (no bound) or more")
	}
	suite := suiteFrom(*suiteDir)
	srv, err := suite.NewServer(nil, *pace)
	if err != nil {
		fmt.Fprintln(stderr, "conform serve:", err)
		return exitUsage
	}
	srv.Addr, srv.RunIdle, srv.MaxRuns = *addr, *runIdle, *maxRuns
	if err := srv.Start(); err != nil {
		fmt.Fprintln(stderr, "conform serve:", err)
		return exitUsage
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "replay server on %s; POST /runs to start a run, Ctrl-C stops it\n", srv.URL)
	if *scenario != "" {
		body, _ := json.Marshal(map[string]string{"id": "default", "scenario": *scenario, "model": *model})
		resp, err := http.Post(srv.URL+"/runs", "application/json", bytes.NewReader(body))
		if err != nil {
			fmt.Fprintln(stderr, "conform serve:", err)
			return exitUsage
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var run struct {
			Providers map[string]string `json:"providers"`
			Error     struct{ Message string }
		}
		json.Unmarshal(data, &run) //nolint:errcheck // the status says what matters
		if resp.StatusCode != http.StatusCreated {
			fmt.Fprintf(stderr, "conform serve: %s\n", run.Error.Message)
			return exitUsage
		}
		var lines []string
		for _, p := range slices.Sorted(maps.Keys(run.Providers)) {
			lines = append(lines, fmt.Sprintf("  %s base URL: %s", p, run.Providers[p]))
		}
		fmt.Fprintf(stdout, "run default: %s on %s\n%s\n", *scenario, *model, strings.Join(lines, "\n"))
	}
	<-ctx.Done()
	return exitOK
}

// suiteFrom is the built-in suite, or the one in dir.
func suiteFrom(dir string) certify.Suite {
	if dir == "" {
		return certify.Builtin()
	}
	return certify.DirSuite(dir)
}
