package replay_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/replay"
)

// TestNewBodyPaced: a paced event-stream body hands out one event a Read,
// waiting the pace before each event after the first, and gives the whole
// body back; cancelled while it waits, it fails with the context's error,
// and once closed with an error of its own.
func TestNewBodyPaced(t *testing.T) {
	const stream = "data: 1\n\ndata: 2\n\ndata: 3\n\n"
	const pace = 20 * time.Millisecond

	body := replay.NewBody(context.Background(), []byte(stream), true, pace)
	type read struct {
		data []string
		err  error
	}
	done := make(chan read, 1)
	start := time.Now()
	go func() {
		var r read
		buf := make([]byte, 64)
		for len(r.data) < 10 {
			n, err := body.Read(buf)
			if n > 0 {
				r.data = append(r.data, string(buf[:n]))
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					r.err = err
				}
				break
			}
		}
		done <- r
	}()
	select {
	case r := <-done:
		require.NoError(t, r.err)
		assert.Equal(t, []string{"data: 1\n\n", "data: 2\n\n", "data: 3\n\n"}, r.data)
		assert.GreaterOrEqual(t, time.Since(start), 2*pace, "two waits, before the second and third events")
	case <-time.After(10 * time.Second):
		t.Fatal("reading a paced body did not finish")
	}

	ctx, cancel := context.WithCancel(context.Background())
	body = replay.NewBody(ctx, []byte(stream), true, time.Hour)
	buf := make([]byte, 64)
	n, err := body.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "data: 1\n\n", string(buf[:n]))
	time.AfterFunc(10*time.Millisecond, cancel)
	n, err = body.Read(buf)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, n)

	body = replay.NewBody(context.Background(), []byte(stream), true, time.Hour)
	_, err = body.Read(buf)
	require.NoError(t, err)
	time.AfterFunc(10*time.Millisecond, func() { body.Close() })
	n, err = body.Read(buf)
	assert.Error(t, err, "closed while waiting")
	assert.Zero(t, n)
}
