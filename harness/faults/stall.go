package faults

import "context"

// stallKey is the context key of OnStall's hook.
type stallKey struct{}

// OnStall returns a copy of ctx under which a stall fault, in a request
// made with it (or a context derived from it), calls begin as the stall
// begins, with the stalled request's context, and the func begin returns
// once the stall ends. A stall is the one moment nothing happens until
// a timeout does: a harness whose adapters run their timeouts on a
// virtual clock advances that clock to its next timers there, so the
// stall ends at once and deterministically, as it would after that much
// real time. The stall itself still lasts until the request's context is
// done (or its body is closed).
func OnStall(ctx context.Context, begin func(ctx context.Context) (end func())) context.Context {
	return context.WithValue(ctx, stallKey{}, begin)
}

// stall waits until ctx is done or closed is (nil: never), telling the
// OnStall hook of ctx, if any; it returns the error that ended the wait:
// ctx.Err(), or errClosed.
func stall(ctx context.Context, closed <-chan struct{}) error {
	if begin, ok := ctx.Value(stallKey{}).(func(context.Context) func()); ok {
		if end := begin(ctx); end != nil {
			defer end()
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-closed:
		return errClosed
	}
}
