package replay

import "time"

// Option configures a Player. Options are made only by this package's
// constructors.
type Option interface {
	apply(*Player)
}

type optionFunc func(*Player)

func (f optionFunc) apply(p *Player) { f(p) }

// WithPacing delays each server-sent event after the first by d, as a
// slow provider would. The default is no delay. A delay never outlasts the
// request's context.
func WithPacing(d time.Duration) Option {
	return optionFunc(func(p *Player) { p.pace = d })
}

// WithHeaders replaces DefaultHeaders as the request headers that take part
// in matching. Names are case-insensitive.
func WithHeaders(names ...string) Option {
	return optionFunc(func(p *Player) { p.headers = append([]string(nil), names...) })
}
