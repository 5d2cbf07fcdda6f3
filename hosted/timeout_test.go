package hosted

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// TestSilentServerDoesNotHang: a listener that accepts connections and
// never answers must not hang a call made without a context deadline; the
// response header timeout ends it with a typed error.
func TestSilentServerDoesNotHang(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})

	c, err := NewClient(testKey, pfc.WithBaseURL("http://"+ln.Addr().String()+"/v2"),
		pfc.WithResponseHeaderTimeout(20*time.Millisecond), pfc.WithRetries(1, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.GetJob(context.Background(), "j1")
	require.ErrorIs(t, err, pfc.ErrResponseHeaderTimeout)
	assert.NotContains(t, err.Error(), testKey)
}
