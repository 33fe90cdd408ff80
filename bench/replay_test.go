package bench

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/metis-llm/metis/harness/replay"
)

// replayCassettes picks suite cassettes of three shapes, whatever the
// suite holds today: the one with the most interactions (streamed and
// not), a tool round trip (two interactions), and the one with the
// largest response (a long real stream). Cassettes whose URLs carry a
// query are left out: go-vcr's default matcher compares the parsed form
// with the recorded one, which imported cassettes do not carry.
func replayCassettes(tb testing.TB) []string {
	tb.Helper()
	type entry struct {
		name               string
		interactions, size int
	}
	var all []entry
	root := filepath.Join("..", "cassettes")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		rel, _ := filepath.Rel(root, strings.TrimSuffix(path, ".yaml"))
		c, err := cassette.Load(strings.TrimSuffix(path, ".yaml"))
		if err != nil {
			return err
		}
		e := entry{name: filepath.ToSlash(rel), interactions: len(c.Interactions)}
		for _, in := range c.Interactions {
			if strings.Contains(in.Request.URL, "?") {
				return nil
			}
			e.size += len(in.Response.Body)
		}
		all = append(all, e)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	var most, tools, large entry
	for _, e := range all {
		if e.interactions > most.interactions {
			most = e
		}
		if tools.name == "" && e.interactions == 2 && strings.Contains(e.name, "/tools/") {
			tools = e
		}
		if e.size > large.size {
			large = e
		}
	}
	out := []string{}
	for _, e := range []entry{most, tools, large} {
		if e.name != "" && !slices.Contains(out, e.name) {
			out = append(out, e.name)
		}
	}
	if len(out) < 2 {
		tb.Fatalf("found only %v among %d suite cassettes", out, len(all))
	}
	return out
}

// cassettePath is a suite cassette's path without ".yaml", as go-vcr
// wants it.
func cassettePath(name string) string {
	return filepath.Join("..", "cassettes", filepath.FromSlash(name))
}

// recordedRequest rebuilds, cheaply, the request a client sent for one
// interaction, exactly as recorded, so that go-vcr's default matcher and
// metis's both match it.
type recordedRequest struct {
	in  *cassette.Interaction
	url *url.URL
}

func (r recordedRequest) new() *http.Request {
	rq := r.in.Request
	return &http.Request{
		Method: rq.Method, URL: r.url, Proto: rq.Proto, ProtoMajor: rq.ProtoMajor, ProtoMinor: rq.ProtoMinor,
		Header: rq.Headers.Clone(), Body: io.NopCloser(strings.NewReader(rq.Body)), ContentLength: rq.ContentLength,
		Host: rq.Host,
	}
}

func requestsOf(tb testing.TB, c *cassette.Cassette) []recordedRequest {
	tb.Helper()
	out := make([]recordedRequest, len(c.Interactions))
	for i, in := range c.Interactions {
		u, err := url.Parse(in.Request.URL)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = recordedRequest{in, u}
	}
	return out
}

// serve sends each request through rt and reads each response to the end,
// as a decoder does, returning the bodies' total size.
func serve(tb testing.TB, rt http.RoundTripper, reqs []recordedRequest, buf []byte) int {
	n := 0
	for _, r := range reqs {
		resp, err := rt.RoundTrip(r.new())
		if err != nil {
			tb.Fatal(err)
		}
		for {
			m, err := resp.Body.Read(buf)
			n += m
			if err == io.EOF {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
		}
		resp.Body.Close()
	}
	return n
}

func loadCassette(tb testing.TB, name string) *cassette.Cassette {
	tb.Helper()
	c, err := cassette.Load(cassettePath(name))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// vcr opens a go-vcr v4 replaying recorder on a suite cassette: replay
// only, no recorded latency, its default matcher.
func vcr(tb testing.TB, name string, replayable bool) *recorder.Recorder {
	tb.Helper()
	r, err := recorder.New(cassettePath(name), recorder.WithMode(recorder.ModeReplayOnly),
		recorder.WithSkipRequestLatency(true), recorder.WithReplayableInteractions(replayable))
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkReplay serves suite cassettes through harness/replay (metis)
// and go-vcr v4 (govcr). op=serve: the cassette is loaded; each op serves
// every interaction once and reads the bodies. op=load+serve: each op also
// reads and parses the cassette file first, as a scenario run does.
func BenchmarkReplay(b *testing.B) {
	buf := make([]byte, 32<<10)
	for _, name := range replayCassettes(b) {
		c := loadCassette(b, name)
		reqs := requestsOf(b, c)
		size := int64(len(c.Interactions))
		b.Run("op=serve/cassette="+name+"/impl=metis", func(b *testing.B) {
			// A player serves each interaction once: give it b.N copies.
			many := cassette.New("bench")
			for range b.N {
				for _, in := range c.Interactions {
					many.AddInteraction(&cassette.Interaction{Request: in.Request, Response: in.Response})
				}
			}
			p, err := replay.New(many)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := startCPU()
			for range b.N {
				serve(b, p, reqs, buf)
			}
			cpu.report(b)
			b.ReportMetric(float64(size), "interactions/op")
		})
		b.Run("op=serve/cassette="+name+"/impl=govcr", func(b *testing.B) {
			r := vcr(b, name, true)
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				serve(b, r, reqs, buf)
			}
			cpu.report(b)
			b.ReportMetric(float64(size), "interactions/op")
		})
		b.Run("op=load+serve/cassette="+name+"/impl=metis", func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				p, err := replay.Load(cassettePath(name))
				if err != nil {
					b.Fatal(err)
				}
				serve(b, p, reqs, buf)
			}
			cpu.report(b)
			b.ReportMetric(float64(size), "interactions/op")
		})
		b.Run("op=load+serve/cassette="+name+"/impl=govcr", func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				serve(b, vcr(b, name, false), reqs, buf)
			}
			cpu.report(b)
			b.ReportMetric(float64(size), "interactions/op")
		})
	}
}

// TestReplayImplsAgree checks that both players serve every benchmarked
// interaction with its recorded body.
func TestReplayImplsAgree(t *testing.T) {
	for _, name := range replayCassettes(t) {
		c := loadCassette(t, name)
		reqs := requestsOf(t, c)
		p, err := replay.Load(cassettePath(name))
		if err != nil {
			t.Fatal(err)
		}
		r := vcr(t, name, false)
		for i, rq := range reqs {
			want := c.Interactions[i].Response.Body
			for impl, rt := range map[string]http.RoundTripper{"metis": p, "govcr": r} {
				resp, err := rt.RoundTrip(rq.new())
				if err != nil {
					t.Fatalf("%s: %s: interaction %d: %v", name, impl, i, err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !bytes.Equal(got, []byte(want)) {
					t.Errorf("%s: %s: interaction %d: body differs from the recording (err %v)", name, impl, i, err)
				}
			}
		}
	}
}
