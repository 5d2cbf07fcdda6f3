package bgcontainer

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/pfcsdk/pfc-go/pfc"
)

// fuzzSecret stands for a licence key echoed in an answer; the decoders'
// redactor must keep it out of every error.
const fuzzSecret = "LIC-fuzz-secret-0042"

// FuzzDecodeRecords feeds any body to the four JSON decoders of the
// client (SubmitImage, CheckImage, RemoveImage, Authorize/Status): no
// panic; a failure is a *pfc.ResponseError matching pfc.ErrInvalidResponse whose
// text never holds the secret; a SubmitImage success has a process id.
func FuzzDecodeRecords(f *testing.F) {
	for _, s := range []string{
		`{"process_id":"0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10","status":"processing","mode":"general","preprocessing_enabled":"true","message":"Image processing started"}`,
		`{"process_id":"x","status":"completed","original_name":"a.jpg","mode":"portrait","processing_time":1.25}`,
		`{"process_id":"x","status":"failed","error":"boom ` + fuzzSecret + `"}`,
		`{"process_id":"x","previous_status":"queued","message":"removed"}`,
		`{"status":"Licensed","licensed org":"Org","expiration date":"2027-11","message":"` + fuzzSecret + `"}`,
		`{"status":"Licensed","expiration date":"2027-11-30T23:59:59Z"}`,
		`{"processing_time":-1}`, `{"processing_time":1e400}`, `{"processing_time":"1"}`, `{"preprocessing_enabled":true}`,
		`{"process_id":null}`, `{"process_id":7}`, `[]`, `null`, ``, `{`, `{"a":1}{"b":2}`, "\xff{}", `{"process_id":"` + fuzzSecret + `"}x`,
	} {
		f.Add([]byte(s))
	}
	redact := func(s string) string { return strings.ReplaceAll(s, fuzzSecret, "REDACTED") }
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(name string, err error) {
			if err == nil {
				return
			}
			var re *pfc.ResponseError
			if !errors.As(err, &re) || !errors.Is(err, pfc.ErrInvalidResponse) {
				t.Fatalf("%s: %T %v is not a *pfc.ResponseError", name, err, err)
			}
			if strings.Contains(err.Error(), fuzzSecret) {
				t.Fatalf("%s: the secret in the error: %v", name, err)
			}
		}
		j, err := decodeJob(bytes.NewReader(body), redact)
		check("SubmitImage", err)
		if err == nil && j.ProcessID == "" {
			t.Fatal("SubmitImage: decoded without a process id")
		}
		_, err = decodeCheckResult("0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10", bytes.NewReader(body), redact)
		check("CheckImage", err)
		_, err = decodeDeleteResult(bytes.NewReader(body), redact)
		check("RemoveImage", err)
		for _, ep := range []endpoint{epAuthorize, epStatus} {
			_, err = decodeLicenseStatus(ep, bytes.NewReader(body), redact)
			check(string(ep), err)
		}
	})
}
