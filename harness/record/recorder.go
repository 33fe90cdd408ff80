package record

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/metis-llm/metis/harness/replay"
)

// Options configures a Recorder. Every field is optional.
type Options struct {
	// Scenario, Provider, Model, Source and Endpoint go into the
	// provenance header (Source defaults to live).
	Scenario string
	Provider string
	Model    string
	Source   Source
	Endpoint string

	// Transport sends requests to the real server; nil means
	// http.DefaultTransport. The cassette keeps each request's own URL,
	// so a transport that redirects requests (to an emulator, a proxy)
	// still records provider URLs.
	Transport http.RoundTripper
	// Secrets are the API keys in use. Save fails, writing nothing, when
	// any of them (or anything shaped like a key) is in the cassette.
	Secrets []string
	// Context, when set, is the recording session's: a recording whose
	// context is done before Save is discarded instead.
	Context context.Context
	// Now stamps recorded_at; nil means time.Now.
	Now func() time.Time
	// RequestHeaders and ResponseHeaders replace the package's allowlists
	// when non-nil.
	RequestHeaders, ResponseHeaders []string
}

// Recorder records HTTP exchanges into one cassette. It is an
// http.RoundTripper, safe for concurrent use; streamed responses are
// received whole (go-vcr reads them to the end) and handed on one
// server-sent event per Read, honouring the request's context. Nothing is
// written before Save.
type Recorder struct {
	path string
	opts Options
	vcr  *recorder.Recorder
	rt   http.RoundTripper
	fs   *tempFS

	mu        sync.Mutex
	captured  int
	finished  bool
	written   bool
	unchanged bool
}

// NewRecorder returns a Recorder for the cassette at path (".yaml" is
// added when missing). An existing file there is left alone until Save
// replaces it.
func NewRecorder(path string, opts Options) (*Recorder, error) {
	if !strings.HasSuffix(path, ".yaml") {
		path += ".yaml"
	}
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport
	}
	if opts.Source == "" {
		opts.Source = SourceLive
	}
	r := &Recorder{path: path, opts: opts, fs: &tempFS{path: path}}
	s := newScrubber(opts.RequestHeaders, opts.ResponseHeaders, opts.Secrets)
	vcr, err := recorder.New(strings.TrimSuffix(path, ".yaml"),
		recorder.WithMode(recorder.ModeRecordOnly),
		recorder.WithRealTransport(opts.Transport),
		recorder.WithSkipRequestLatency(true),
		recorder.WithFS(r.fs),
		recorder.WithHook(r.count, recorder.AfterCaptureHook),
		recorder.WithHook(s.collect, recorder.AfterCaptureHook),
		recorder.WithHook(s.scrub, recorder.BeforeSaveHook),
	)
	if err != nil {
		return nil, fmt.Errorf("record: %s: %w", path, err)
	}
	r.vcr = vcr
	r.rt = replay.Resplit(vcr)
	return r, nil
}

func (r *Recorder) count(*cassette.Interaction) error {
	r.mu.Lock()
	r.captured++
	r.mu.Unlock()
	return nil
}

// RoundTrip sends req to the real server and records the exchange.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	finished := r.finished
	r.mu.Unlock()
	if finished {
		return nil, fmt.Errorf("record: %s: request after the recording was saved or discarded", r.path)
	}
	return r.rt.RoundTrip(req)
}

// Path is the cassette's file name.
func (r *Recorder) Path() string { return r.path }

// Interactions is how many exchanges have been recorded.
func (r *Recorder) Interactions() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.captured
}

// Written reports whether Save wrote the cassette.
func (r *Recorder) Written() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}

// Finish is the harness's end-of-run hook: it saves the cassette when the
// run passed and discards the recording otherwise. (Run does not let the
// harness call it: it stages every cassette of a scenario and commits
// them together.)
func (r *Recorder) Finish(passed bool) error {
	if !passed {
		r.Discard()
		return nil
	}
	return r.Save()
}

// Save scrubs the recorded interactions and writes the cassette
// atomically (see the package documentation): Stage, then Commit. A
// recording with no interaction writes nothing. On any failure —
// including a secret found after scrubbing, and the recording's context
// being done — nothing is left behind and an existing cassette is
// untouched. Save and Discard end the recording; later calls do nothing.
func (r *Recorder) Save() error {
	if err := r.Stage(); err != nil {
		return err
	}
	return r.Commit()
}

// Stage ends the recording and writes the scrubbed cassette to a
// temporary file beside its path, synced to disk and scanned for
// secrets, without touching the cassette itself; Commit puts it in
// place, Discard removes it. A recording with no interaction, or the same
// recording as the existing cassette (see Unchanged), stages nothing.
// On failure nothing is left behind.
func (r *Recorder) Stage() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return nil
	}
	r.finished = true
	if r.opts.Context != nil {
		if err := r.opts.Context.Err(); err != nil {
			return fmt.Errorf("record: %s not written: %w", r.path, err)
		}
	}
	if r.captured == 0 {
		return nil
	}
	now := time.Now
	if r.opts.Now != nil {
		now = r.opts.Now
	}
	r.fs.header = Provenance{
		Scenario: r.opts.Scenario, Provider: r.opts.Provider, Model: r.opts.Model,
		Source: r.opts.Source, Endpoint: r.opts.Endpoint,
		RecordedAt: now().UTC().Truncate(time.Second), MetisVersion: Version,
	}.Header()
	ok := false
	defer func() {
		if !ok {
			r.fs.cleanup()
		}
	}()
	if err := r.vcr.Stop(); err != nil {
		return fmt.Errorf("record: writing %s: %w", r.path, err)
	}
	data, err := os.ReadFile(r.fs.temp)
	if err != nil {
		return fmt.Errorf("record: reading back %s: %w", r.path, err)
	}
	if leaks := ScanSecrets(data, r.opts.Secrets...); len(leaks) > 0 {
		return &LeakError{Path: r.path, Leaks: leaks}
	}
	if old, err := os.ReadFile(r.path); err == nil && sameRecording(old, data) {
		// The same traffic as before: keep the file, and its recorded_at,
		// so that re-recording unchanged scenarios changes nothing.
		r.written, r.unchanged = true, true
		return nil
	}
	ok = true
	return nil
}

// Commit renames the staged cassette over its path and syncs the
// directory. Without a staged cassette it does nothing.
func (r *Recorder) Commit() error { return commit(r) }

// staged returns the recorder's staged file, if any.
func (r *Recorder) staged() *tempFS {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fs.temp == "" {
		return nil
	}
	return r.fs
}

func (r *Recorder) setWritten() {
	r.mu.Lock()
	r.written = true
	r.mu.Unlock()
}

// Unchanged reports whether Save found the cassette already holding
// exactly this recording (provenance aside from recorded_at) and left it
// as it was. Written is true then too.
func (r *Recorder) Unchanged() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unchanged
}

// sameRecording reports whether two cassettes hold the same provenance
// apart from recorded_at, and the same interactions byte for byte apart
// from canonical tool and request ids (tu_<ULID>, req_<ULID>), which are
// new on every run and which replay matching ignores.
func sameRecording(a, b []byte) bool {
	strip := func(data []byte) string {
		var kept []string
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if !strings.HasPrefix(line, "# recorded_at: ") {
				kept = append(kept, line)
			}
		}
		return replay.NormalizeIDs(strings.Join(kept, ""))
	}
	return strip(a) == strip(b)
}

// Discard drops the recording: nothing is written.
func (r *Recorder) Discard() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = true
	r.fs.cleanup()
}

// ErrLeak is matched by a *LeakError with errors.Is.
var ErrLeak = errors.New("secret in cassette")

// Is makes errors.Is(err, ErrLeak) true for a *LeakError.
func (e *LeakError) Is(target error) bool { return target == ErrLeak }

var _ http.RoundTripper = (*Recorder)(nil)
