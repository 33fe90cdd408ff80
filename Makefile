# metis — common tasks. Every target is a thin wrapper over go commands so
# that a newcomer can also run them by hand.
GO ?= go
FUZZTIME ?= 60s
FUZZSHORT ?= 200x

.PHONY: test race lint conform validate record-missing record bench bench-compare fuzz fuzz-short emulate mutate plant thirdparty

test:            ## unit tests and the conformance suite (the README's quick-start test command)
	$(GO) test ./...

race:            ## the tests under the race detector; -short samples the whole-suite matrices (docs/development/testing.md)
	$(GO) test -race -short ./...

lint:            ## gofmt check and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

conform:         ## the main job: replay every scenario against the committed cassettes
	$(GO) run ./cmd/conform run

validate:        ## lint every scenario exactly as conform run does; warn about missing cassettes and goldens
	$(GO) run ./cmd/conform validate

record-missing:  ## record missing cassettes against the emulator and write missing goldens (a new scenario green)
	$(GO) run ./cmd/conform run --record=missing

record:          ## refresh cassettes against the live APIs (needs API keys); ARGS=--dry-run etc.
	$(GO) run ./cmd/conform record $(ARGS)

bench:           ## stream decoder benchmarks, side by side
	$(GO) test -run '^$$' -bench . -benchmem ./adapters/...

bench-compare:   ## metis vs the official SDKs, go-vcr and a floor in one run (bench/): benchstat tables, ratios, targets; ROUNDS=6 BENCHTIME=0.5s
	bash bench/compare.sh

thirdparty:      ## certify charm.land/fantasy and langchaingo through thin shims (thirdparty/, a module of its own; its README lists each expected failure)
	cd thirdparty && $(GO) vet ./... && $(GO) test -parallel 4 ./...

mutate:          ## mutation testing (gremlins, not in CI): adapters/ and session/ with conform run alone as the test (hours; MUTATE_TARGETS="adapters/anthropic session" for part); MUTATE_SET=tooling: record, import, replay, faults, reports and sharding, certify under their own tests (mutate/tooling.targets)
	@if [ "$(MUTATE_SET)" = tooling ]; then bash mutate/tooling.sh; else bash mutate/run.sh; fi

plant:           ## plant each real bug class of mutate/plant/plants.txt in a scratch copy and score conform run and the packages' tests (docs/bug-classes.md); PLANTS="01-azure-model-for-deployment" for part
	bash mutate/plant.sh

fuzz-short:      ## every fuzz target for a short, bounded budget, as CI runs it (.ci/fuzz): FUZZSHORT inputs or time each (default 200x)
	FUZZTIME=$(FUZZSHORT) bash .ci/fuzz

fuzz:            ## run every fuzz target for FUZZTIME each (default 60s; make fuzz FUZZTIME=5s for a quick pass)
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
