package doccheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
	"github.com/pfcsdk/pfc-go/webhook"
)

// errorDoc is the text an Error method's doc says it returns.
type errorDoc struct {
	typ      string // "webhook.TimestampError"
	at       string // file:line of the doc
	template string
}

// quotedRE finds the first double-quoted text of a doc: from a quote to
// the next quote that ends a word (followed by punctuation, a space or
// the end), so that quotes inside the text ("field \"<f>\"") are kept.
var quotedRE = regexp.MustCompile(`"(.+?)"(?:[.,;:)]|\s|$)`)

// errorDocs returns, for every Error method of an exported type of the
// public packages whose doc quotes what it returns, that quote.
func errorDocs(t *testing.T) []errorDoc {
	var out []errorDoc
	for _, p := range publicPackages(t) {
		for _, f := range p.files {
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Name.Name != "Error" || fd.Recv == nil || fd.Doc == nil {
					continue
				}
				recv := recvName(fd.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				text := strings.Join(strings.Fields(fd.Doc.Text()), " ")
				if m := quotedRE.FindStringSubmatch(text); m != nil {
					out = append(out, errorDoc{typ: p.name + "." + recv, at: p.line(fd.Doc.Pos()), template: m[1]})
				}
			}
		}
	}
	return out
}

// templateRE turns a documented error text into a regular expression:
// <placeholder> stands for any text that neither starts nor ends with a
// space, [optional part] may be absent, and
// "..." stands for any text, possibly none; everything else is literal.
func templateRE(tmpl string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(tmpl); {
		switch {
		case tmpl[i] == '<':
			end := strings.IndexByte(tmpl[i:], '>')
			if end < 0 {
				b.WriteString(regexp.QuoteMeta(tmpl[i:]))
				i = len(tmpl)
				continue
			}
			b.WriteString(`\S(?:.*?\S)?`) // a value: no space at either end
			i += end + 1
		case tmpl[i] == '[':
			b.WriteString("(?:")
			i++
		case tmpl[i] == ']':
			b.WriteString(")?")
			i++
		case strings.HasPrefix(tmpl[i:], "..."):
			b.WriteString(".*?")
			i += 3
		default:
			b.WriteString(regexp.QuoteMeta(tmpl[i : i+1]))
			i++
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// errorSamples returns errors of every documented type, made as the SDK
// makes them where a type's text cannot be set from outside (a real
// verification, a real job, a real activation).
func errorSamples(t *testing.T) []error {
	t.Helper()
	samples := []error{
		&pfc.APIError{StatusCode: 400, Method: "GET", URL: "https://api.example.com/v2/pfc?fileKey=k&width=5",
			Message: "width: must be between 32 and 10000, got 5", Parameter: "width", Code: "invalid_parameter",
			RequestID: "req-1", Attempts: 3},
		&pfc.APIError{StatusCode: 404, Method: "GET", URL: "https://api.example.com/v2/status?jobId=j1"},
		&pfc.APIError{StatusCode: 599},
		&pfc.ManifestError{Path: "/out/.pfc-bulk.jsonl", Op: "lock", Err: pfc.ErrManifestInUse},
		pfc.FieldError{Field: "width", Message: "must be between 32 and 10000, got 5"},
		&pfc.ValidationError{Errors: []pfc.FieldError{{Field: "width", Message: "too small"}, {Field: "long", Message: "too large"}}},
		&pfc.ValidationError{Errors: []pfc.FieldError{{Field: "width", Message: "too small"}}},
		&pfc.ResponseError{Endpoint: "GET /status", Field: "status", Reason: "not a string"},
		&pfc.ResponseError{Endpoint: "GET /version", Reason: "not a JSON object"},
		&pfc.DownloadTooLargeError{Name: "j1", Limit: 1 << 20, Written: 10},
		&pfc.WaitTimeoutError{JobID: "j1", Status: "PROCESSING", Waited: 90 * time.Second},
		&pfc.WaitTimeoutError{JobID: "j1", Waited: time.Second},
		&hosted.JobError{Job: &hosted.Job{ID: "j1", Status: hosted.StatusRejected, Code: 1003, StatusText: "CMYK is not supported"}},
		&hosted.JobError{Job: &hosted.Job{ID: "j1", Status: hosted.StatusFailed, Code: 2000}},
		&pfccontainer.Error{Endpoint: "GET /pfc/{imageKey}", StatusCode: 400, MessageID: "unknownPresetMessage",
			Message: "unknown preset", RequestID: "req-1"},
		&pfccontainer.Error{StatusCode: 503},
		&pfccontainer.Error{Endpoint: "GET /version", StatusCode: 599},
		&bgcontainer.Error{Endpoint: "CheckImage", ProcessID: "3f2c", StatusCode: 404, Message: "not found",
			Parameter: "process_id", Code: "not_found", RequestID: "req-1"},
		&bgcontainer.Error{Endpoint: "Status", StatusCode: 599},
		&hostedmock.RejectError{Reason: "CMYK JPEG", Err: errors.New("unsupported colour model")},
		&hostedmock.RejectError{Reason: "CMYK JPEG"},
		&mockserver.EngineUnavailableError{Engine: mockserver.BGEngineCUDA, Reason: errors.New("a build without the cuda tag")},
	}

	// webhook: a delivery signed 301 s ago (TimestampError, as in its
	// doc's example) and one with a timestamp of a leading zero
	// (HeaderError, likewise).
	now := time.Unix(1_800_000_000, 0)
	v, err := webhook.NewVerifierKey("key", webhook.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	body := []byte(`{"jobId":"j1","status":"COMPLETED"}`)
	for _, h := range []http.Header{
		webhook.Sign([]byte("key"), "evt_j1", now.Add(-301*time.Second), body),
		webhook.Sign([]byte("key"), "evt_j1", now, body),
	} {
		if h.Get("webhook-timestamp") == fmt.Sprint(now.Unix()) {
			h.Set("webhook-timestamp", "0"+h.Get("webhook-timestamp"))
		}
		err := v.Verify(h, body)
		require.Error(t, err)
		samples = append(samples, unwrapTyped(err))
	}

	// bgcontainer: jobs that end failed, with an error text and without
	// one, and a licence that does not activate the mock container.
	const withText = "0b7a4cbe-0f8d-4a3f-9c54-7d0d3c3a8e21"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, withText) {
			fmt.Fprint(w, `{"status":"failed","original_name":"in.jpg","mode":"general","error":"the decoder failed"}`)
			return
		}
		fmt.Fprint(w, `{"status":"failed","original_name":"in.jpg","mode":"general"}`)
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	c, err := bgcontainer.NewClient("", pfc.WithBaseURL(srv.URL), pfc.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	for _, id := range []string{withText, "5d7c1a2e-8b4f-4e0a-a1c3-9f2b6d8e0c47"} {
		_, err = c.WaitImage(ctx, id, nil)
		require.Error(t, err)
		samples = append(samples, unwrapTyped(err))
	}

	bg := bgmock.Start(t, nil)
	c, err = bgcontainer.NewClient("not-the-licence-key", pfc.WithBaseURL(bg.URL), pfc.WithHTTPClient(bg.Server.Client()))
	require.NoError(t, err)
	_, err = c.RemoveBackground(ctx, bytes.NewReader([]byte("image")), 5, nil, &bytes.Buffer{}, nil)
	require.Error(t, err)
	samples = append(samples, unwrapTyped(err))
	return samples
}

// unwrapTyped returns the first error in err's tree whose type is a
// pointer to a struct of the module (not fmt's wrapper).
func unwrapTyped(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.HasPrefix(fmt.Sprintf("%T", e), "*") && !strings.HasPrefix(fmt.Sprintf("%T", e), "*fmt.") &&
			!strings.HasPrefix(fmt.Sprintf("%T", e), "*errors.") {
			return e
		}
	}
	return err
}

// TestErrorTextsAsDocumented checks that every Error method that quotes
// what it returns returns that: each documented type has samples, made
// as the SDK makes them, and each sample's text fits the quote.
func TestErrorTextsAsDocumented(t *testing.T) {
	t.Parallel()
	byType := map[string][]error{}
	for _, e := range errorSamples(t) {
		typ := strings.TrimPrefix(fmt.Sprintf("%T", e), "*")
		byType[typ] = append(byType[typ], e)
	}
	docs := errorDocs(t)
	require.NotEmpty(t, docs)
	for _, d := range docs {
		samples := byType[d.typ]
		if len(samples) == 0 {
			t.Errorf("%s: %s documents its text, %q, but errorSamples has no %s to check it with", d.at, d.typ, d.template, d.typ)
			continue
		}
		re := templateRE(d.template)
		for _, e := range samples {
			if !re.MatchString(e.Error()) {
				t.Errorf("%s: %s documents its text as\n\t%q\nbut returns\n\t%q", d.at, d.typ, d.template, e.Error())
			}
		}
	}
}

// The reading of a documented text.
func TestTemplateRE(t *testing.T) {
	t.Parallel()
	re := templateRE(`pfc: <Endpoint>[ <process id>]: <status>[: field "<f>"] (a, ...)`)
	for _, s := range []string{`pfc: CheckImage 3f: 404 (a, b)`, `pfc: Status: 500: field "x" (a, )`} {
		require.Regexp(t, re, s)
	}
	for _, s := range []string{`pfc: : 404 (a, b)`, `pfc: Status: 500  (a, b)`, `pfc: Status: 500 (b)`, `xpfc: Status: 500 (a, b)`, `pfc: Status: 500 (a, b)!`} {
		require.NotRegexp(t, re, s)
	}
	m := quotedRE.FindStringSubmatch(`Error returns "pfc: <e>: invalid response[: field "<f>"]: <reason>".`)
	require.Equal(t, `pfc: <e>: invalid response[: field "<f>"]: <reason>`, m[1])
}
