package streamcheck

// Option adjusts Check. Options are made only by this package's
// constructors.
type Option interface {
	apply(*config)
}

type config struct {
	ignore    map[string]bool
	partial   bool
	cancelled bool
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Ignore turns off the named rules.
func Ignore(rules ...string) Option {
	return optionFunc(func(c *config) {
		for _, r := range rules {
			c.ignore[r] = true
		}
	})
}

// Partial says the consumer stopped iterating before the stream ended, so
// a missing message.complete is not a violation.
func Partial() Option {
	return optionFunc(func(c *config) { c.partial = true })
}

// Cancelled says the consumer cancelled the call: a stream that started
// must then end with a message.complete whose stop_reason is cancelled
// (000 §5.3). A stream cancelled before its first event may be empty.
func Cancelled() Option {
	return optionFunc(func(c *config) { c.cancelled = true })
}
