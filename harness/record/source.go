package record

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/metis-llm/metis/emulator"
)

// DetectEmulator reports whether the server at base is metis's emulator
// (`conform emulate`): whether its GET /health answers with the
// emulator.HealthHeader header. A server that answers otherwise, with
// any status, is not; the error says the server could not be reached.
// rt nil means http.DefaultTransport.
func DetectEmulator(ctx context.Context, base *url.URL, rt http.RoundTripper) (bool, error) {
	if rt == nil {
		rt = http.DefaultTransport
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	health := url.URL{Scheme: base.Scheme, Host: base.Host, User: base.User, Path: "/health"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, health.String(), nil)
	if err != nil {
		return false, fmt.Errorf("record: base URL %s: %w", endpoint(base), err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return false, fmt.Errorf("record: base URL %s does not answer: %w", endpoint(base), err)
	}
	resp.Body.Close()
	return resp.Header.Get(emulator.HealthHeader) != "", nil
}

// resolveSource settles where the session's traffic comes from, and so
// the provenance source of its cassettes and the keys its requests
// carry: the in-process emulator, or a base URL that is a `conform
// emulate` server (Config.Source, else DetectEmulator), record source
// emulator with the fake key, which is also the one secret to scrub;
// everything else records source live with the keys from Getenv, every
// one of which is scrubbed.
func (s *session) resolveSource(ctx context.Context) error {
	c := &s.cfg
	switch c.Source {
	case "", SourceLive, SourceEmulator:
	case SourceImported:
		return errors.New("record: source imported: `record import` makes imported cassettes")
	default:
		return fmt.Errorf("record: source %q: want live or emulator", c.Source)
	}
	switch {
	case c.Emulator:
		if c.Source == SourceLive {
			return errors.New("record: the in-process emulator's cassettes are source emulator, not live")
		}
		s.source = SourceEmulator
	case s.base == nil:
		if c.Source == SourceEmulator {
			return errors.New("record: source emulator needs the emulator: --emulator, or --base-url of a `conform emulate` server")
		}
		s.source = SourceLive
	case c.Source != "":
		s.source = c.Source
	case c.DryRun:
		s.source = SourceLive // a dry run sends nothing, and needs no key either way
	default:
		emu, err := DetectEmulator(ctx, s.base, s.transport)
		if err != nil {
			return err
		}
		s.source = SourceLive
		if emu {
			s.source = SourceEmulator
		}
	}
	if s.source == SourceEmulator {
		s.getenv = func(string) string { return c.FakeKey }
		s.secrets = []string{c.FakeKey}
		return nil
	}
	for _, name := range s.reg.Adapters() {
		if ac, err := s.reg.Config(name, s.getenv); err == nil && ac.APIKey != "" {
			s.secrets = append(s.secrets, ac.APIKey)
		}
	}
	return nil
}
