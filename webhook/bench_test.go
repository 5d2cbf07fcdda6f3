package webhook

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func benchBody(n int) []byte {
	body := bytes.Repeat([]byte("x"), n)
	copy(body, `{"_id":"6651f0c2a1b2c3d4e5f60718","status":"COMPLETED","statusText":"`)
	copy(body[n-2:], `"}`)
	return body
}

// BenchmarkVerify measures verification of a valid delivery; the
// verification path must report 0 allocs/op.
func BenchmarkVerify(b *testing.B) {
	for _, bc := range []struct {
		name    string
		size    int
		secrets int // the last one signs
	}{
		{"1KiB", 1 << 10, 1},
		{"64KiB", 64 << 10, 1},
		{"1KiB/3secrets", 1 << 10, 3},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body := benchBody(bc.size)
			secrets := [][]byte{[]byte("old-1"), []byte("old-2")}[:bc.secrets-1]
			secrets = append(secrets, testSecret)
			v, err := NewVerifier(secrets, WithClock(fixedClock(testTime)))
			if err != nil {
				b.Fatal(err)
			}
			h := Sign(testSecret, testID, testTime, body)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := v.Verify(h, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifyForged measures the rejection of a well-formed but wrong
// signature, the path a flood of forged deliveries takes.
func BenchmarkVerifyForged(b *testing.B) {
	body := benchBody(1 << 10)
	v := newTestVerifier(b)
	h := headers(testID, "1763800000", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if v.Verify(h, body) == nil {
			b.Fatal("forged delivery accepted")
		}
	}
}

// BenchmarkMiddleware measures a whole delivery through the middleware with
// the in-memory replay guard (every delivery has a new id).
func BenchmarkMiddleware(b *testing.B) {
	body := jobBody("6651f0c2a1b2c3d4e5f60718")
	h := Middleware(newTestVerifier(b), WithIdempotency(NewMemoryStore(MemoryStoreOptions{Now: fixedClock(testTime)})))(
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	reqs := make([]*http.Request, b.N)
	for i := range reqs {
		reqs[i] = signedRequest(testID+"_"+strconv.Itoa(i), body)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, reqs[i])
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}
