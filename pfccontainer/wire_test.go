package pfccontainer

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// The one HTTP test double of this file: a raw listener that writes
// whatever bytes a broken or hostile container would.

// rawContainer answers every request on a connection of ln with write,
// then keeps the connection open until the test ends (a server that says
// nothing more).
func rawContainer(t *testing.T, ln net.Listener, write func(io.Writer)) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(done)
		_ = ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				write(conn)
				<-done
			}()
		}
	}()
}

// TestInformationalAnswersNeverHang: GET /pfc/{imageKey} documents no 102,
// but a proxy or a broken container may send one. Followed by nothing it
// ends with the response header timeout as a typed *pfc.APIError (status 102)
// rather than a hang; followed by a final 200 it is skipped as HTTP says;
// followed by garbage it is a typed error too. Each case runs in a
// synctest bubble over an in-memory connection (replicatest.Net): the
// timeout passes on the bubble's clock once the client waits for more,
// so the client has read whatever the container sent by then, however
// busy the machine, and the case costs no real time.
func TestInformationalAnswersNeverHang(t *testing.T) {
	t.Parallel()
	const ok = `{"corrected_url":"http://localhost/output/a.jpg","scene":2}`
	tests := []struct {
		name   string
		answer string
		status int // 0: success
		// timeout is the response header timeout: short where the case
		// ends with it, long where it must not fire at all (the cases
		// that end otherwise would end with it if it did).
		timeout time.Duration
	}{
		{"102 then nothing", "HTTP/1.1 102 Processing\r\n\r\n", 102, 3 * time.Second},
		{"102 then 200", "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 59\r\n\r\n" + ok, 0, time.Minute},
		{"102 then garbage", "HTTP/1.1 102 Processing\r\n\r\nnot http at all\r\n\r\n", 102, time.Minute},
		{"headers never end", "HTTP/1.1 200 OK\r\nX-Slow: 1\r\n", -1, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				require.Len(t, ok, 59)
				nw := replicatest.NewNet(t)
				ln, base := nw.Listen(t)
				rawContainer(t, ln, func(w io.Writer) { _, _ = io.WriteString(w, tt.answer) })
				c, err := NewClient(pfc.WithBaseURL(base), pfc.WithHTTPClient(nw.Client()), pfc.WithRetries(-1, 0, 0), pfc.WithResponseHeaderTimeout(tt.timeout))
				require.NoError(t, err)
				defer c.CloseIdleConnections()
				corr, err := c.GetCorrection(t.Context(), "k.jpg", nil)
				switch tt.status {
				case 0:
					require.NoError(t, err)
					assert.Equal(t, Scene(2), corr.Scene)
				case -1:
					assert.ErrorIs(t, err, pfc.ErrResponseHeaderTimeout)
				default:
					var ae *pfc.APIError
					require.ErrorAs(t, err, &ae)
					assert.Equal(t, tt.status, ae.StatusCode)
				}
			})
		})
	}
}
