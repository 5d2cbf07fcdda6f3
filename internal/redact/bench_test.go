package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

// benchSecrets are what a client redacts during a call: an API key, a
// pre-signed signature and a webhook URL with its parts (URLSecrets).
func benchSecrets() []string {
	out := []string{"Lic-7f3A9c2e-51b4-4d0e-9a7f-6b8c1d2e3f40", "Zm9vYmFyYmF6cXV4LXNpZw-0123456789abcdef"}
	return append(out, URLSecrets("https://hooks.example.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX?sig=abcdef0123456789")...)
}

// benchBody returns about 1 MiB of error-body text: JSON with escapes,
// URLs with queries, words; with secrets in mixed spellings when
// withSecrets is set.
func benchBody(withSecrets bool) string {
	const filler = `{"error":"Bad Request","detail":"the parameter \u0027fileKey\u0027 is invalid: see https:\/\/docs.example.com\/errors?code=400&lang=en#keys","path":"/v2/pfc?fileKey=abc&preset=default","trace":"at com.example.Handler.handle(Handler.java:42) &amp; more = 3 + 4 % 5","hint":"Retry later; the service is busy.\nContact support@example.com with request id 5f1c2a9e-33b0-4c1e-8f0d-2a1b3c4d5e6f."}` + "\n"
	var b strings.Builder
	key := "Lic-7f3A9c2e-51b4-4d0e-9a7f-6b8c1d2e3f40"
	spellings := []string{
		"LIC-7F3a9C2E-51b4-4d0e-9A7F-6b8c1d2e3f40",
		url.QueryEscape(key),
		`\u004cic-7f3A9c2e\u002d51b4-4d0e-9a7f-6b8c1d2e3f40`,
		"&#76;ic-7f3A9c2e&#x2D;51b4-4d0e-9a7f-6b8c1d2e3f40",
		"Lic-7f3A9c2e-51b4-4d0e-9a7f-6b8c1d2e=\r\n3f40",
		base64.StdEncoding.EncodeToString([]byte(key)),
		"https%3A%2F%2Fhooks.example.com%2Fservices%2FT000%2FB000%2FXXXXXXXXXXXXXXXXXXXXXXXX%3Fsig%3Dabcdef0123456789",
	}
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(filler)
		if withSecrets && i%512 == 0 {
			b.WriteString(`{"echo":"` + spellings[(i/512)%len(spellings)] + `"}` + "\n")
		}
	}
	return b.String()
}

// BenchmarkRedact1MiB redacts a 1 MiB error body holding a few secrets in
// mixed spellings, and one holding none. The goal is under 5 ms per body.
// cpu-ns/op is the process's CPU time per body, which other processes
// sharing the machine do not inflate as they do ns/op.
func BenchmarkRedact1MiB(b *testing.B) {
	m := New(benchSecrets()...)
	for _, bc := range []struct {
		name    string
		secrets bool
	}{{"secrets", true}, {"clean", false}} {
		body := benchBody(bc.secrets)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			cpu0, n := cpuTime(), 0
			for b.Loop() {
				out := m.Redact(body)
				if bc.secrets == (out == body) {
					b.Fatal("unexpected redaction")
				}
				n++
			}
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
			}
		})
	}
}

// TestBenchBodyIsRedacted: every secret the benchmark's body spells is
// gone once redacted, and the secret-free body comes back as it was.
func TestBenchBodyIsRedacted(t *testing.T) {
	t.Parallel()
	m := New(benchSecrets()...)
	got := strings.ToLower(m.Redact(benchBody(true)))
	for _, frag := range []string{"7f3a9c2e", "4c69632d", "tglj", "xxxxxxxxxxxx", "abcdef0123"} {
		if strings.Contains(got, frag) {
			t.Errorf("%q survives", frag)
		}
	}
	if clean := benchBody(false); m.Redact(clean) != clean {
		t.Error("the secret-free body changed")
	}
}
