package bgsvc

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

// FuzzSubmitForm feeds any body, under any Content-Type boundary, to the
// multipart parsing of POST /SubmitImage: no panic; a refusal is a 4xx
// (400 invalid_body or invalid_parameter, 413, 422), never a 5xx; an
// accepted form holds the file part's bytes exactly, and its file is gone
// once the upload is discarded.
func FuzzSubmitForm(f *testing.F) {
	form := func(parts ...[2]string) []byte {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		_ = mw.SetBoundary("BOUNDARY")
		for _, p := range parts {
			if p[0] == ParamFile {
				w, _ := mw.CreateFormFile(ParamFile, "in.png")
				_, _ = w.Write([]byte(p[1]))
				continue
			}
			_ = mw.WriteField(p[0], p[1])
		}
		_ = mw.Close()
		return b.Bytes()
	}
	f.Add("BOUNDARY", form([2]string{ParamFile, "\x89PNG\r\n\x1a\nrest"}, [2]string{ParamMode, "portrait"}))
	f.Add("BOUNDARY", form([2]string{ParamFile, "a"}, [2]string{ParamFile, "b"}))
	f.Add("BOUNDARY", form([2]string{ParamMode, "general"}, [2]string{ParamPreprocessingConfig, `{"denoise":false}`}))
	f.Add("BOUNDARY", form([2]string{ParamFile, ""}, [2]string{"other", "x"}, [2]string{ParamPreprocessingConfig, "{"}))
	f.Add("BOUNDARY", form([2]string{ParamMode, string(bytes.Repeat([]byte("m"), maxFieldBytes+1))}))
	f.Add("BOUNDARY", []byte("--BOUNDARY\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\ntruncated"))
	f.Add("", []byte("not multipart"))
	f.Add("x\"y", []byte("--x\"y--"))

	dir := f.TempDir()
	s, err := New(Config{LicenseKey: testKey, Clock: clock.NewFake(t0), Workers: 1, MaxFileBytes: 1 << 16}, Deps{WorkDir: dir})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	if _, e := s.Authorize(testKey); e != nil {
		f.Fatal(e)
	}
	f.Fuzz(func(t *testing.T, boundary string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/SubmitImage", bytes.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=\""+boundary+"\"")
		req, e := s.ReadSubmitForm(httptest.NewRecorder(), r)
		if e != nil {
			if e.Status < 400 || e.Status >= 500 {
				t.Fatalf("answered %d %s: %s", e.Status, e.Code, e.Message)
			}
			return
		}
		if req.File == nil {
			t.Fatal("accepted without a file")
		}
		// The stored file is the file part, byte for byte.
		mr := multipart.NewReader(bytes.NewReader(body), boundary)
		var want []byte
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			if p.FormName() == ParamFile {
				var b bytes.Buffer
				_, _ = b.ReadFrom(p)
				want = b.Bytes()
				break
			}
		}
		got, err := os.ReadFile(req.File.temp.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("stored %d bytes, the part has %d", len(got), len(want))
		}
		path := req.File.temp.Path
		req.File.Discard()
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("the discarded upload is still there: %v", err)
		}
	})
}
