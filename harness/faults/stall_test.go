package faults_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
)

// TestOnStall: a stall, before the response or mid-stream, calls the
// OnStall hook of its request's context as it begins, with that context
// (so the hook can end it, as a virtual clock's timeout does), and the
// func the hook returned once it has ended; other faults never call it.
func TestOnStall(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault faults.Fault
		want  []string
	}{
		{"before the response", faults.Fault{Kind: faults.KindStall, AfterEvents: faults.BeforeResponse}, []string{"begin", "end"}},
		{"mid-stream", faults.Fault{Kind: faults.KindStall, AfterEvents: 2}, []string{"begin", "end"}},
		{"truncate", faults.Fault{Kind: faults.KindTruncate, AfterEvents: 2}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			ctx := faults.OnStall(context.Background(), func(ctx context.Context) func() {
				got = append(got, "begin")
				ctx.Value(cancelKey{}).(context.CancelFunc)() // the timeout fires
				return func() { got = append(got, "end") }
			})
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			ctx = context.WithValue(ctx, cancelKey{}, context.CancelFunc(cancel))
			in := faults.Transport(sse(anthropicStream), tt.fault)
			resp, err := in.RoundTrip(newRequest(t, ctx, anthropicURL))
			if err == nil {
				defer resp.Body.Close()
				_, err = readAll(resp.Body)
			}
			if tt.want != nil {
				require.ErrorIs(t, err, context.Canceled)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hook calls (-want +got):\n%s", diff)
			}
		})
	}
}

type cancelKey struct{}
