package harness

import (
	"context"
	"iter"
	"sync"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// observed wraps a run's adapter to keep the last request it was given
// and the last response Complete returned: a session's Call returns a
// Message, but expectations need the stop reason, and a call with
// both: true resends the same request.
type observed struct {
	adapters.Adapter

	mu   sync.Mutex
	req  *canonical.Request
	resp *canonical.Response
}

func (o *observed) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	o.mu.Lock()
	o.req, o.resp = req, nil
	o.mu.Unlock()
	resp, err := o.Adapter.Complete(ctx, req)
	o.mu.Lock()
	o.resp = resp
	o.mu.Unlock()
	return resp, err
}

func (o *observed) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	o.mu.Lock()
	o.req, o.resp = req, nil
	o.mu.Unlock()
	return o.Adapter.Stream(ctx, req)
}

// reset forgets the last request and response.
func (o *observed) reset() {
	o.mu.Lock()
	o.req, o.resp = nil, nil
	o.mu.Unlock()
}

func (o *observed) last() (*canonical.Request, *canonical.Response) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.req, o.resp
}
