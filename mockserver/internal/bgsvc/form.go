package bgsvc

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// maxFieldBytes bounds the mode form field.
const maxFieldBytes = 256

// formOverhead is what a SubmitImage body may hold beyond the file: part
// headers, boundaries and the text fields.
const formOverhead = MaxPreprocessingConfigBytes + 64<<10

// ReadSubmitForm streams the multipart/form-data body of POST /SubmitImage:
// the file part goes straight into the service's storage (ReceiveFile),
// the text fields mode and preprocessing_config are read bounded, other
// parts are skipped. The query parameters are the handler's. The body is
// bounded by Config.MaxFileBytes plus room for the fields (413 beyond).
//
// Errors: 403 not_activated before anything is read; a body that is not multipart/form-data, or has no file part, is
// 422 (parameter file); a malformed body 400 invalid_body; a field or file
// part given twice 400 invalid_parameter. The caller passes the result to
// Submit, which takes over the file; on error nothing is kept.
func (s *Service) ReadSubmitForm(w http.ResponseWriter, r *http.Request) (SubmitRequest, *httpx.Error) {
	var req SubmitRequest
	if e := s.CheckActivated(); e != nil {
		return req, e
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return req, httpx.ParamError(http.StatusUnprocessableEntity, httpx.CodeUnprocessable, ParamFile,
			"is required: send a multipart/form-data body with a file part")
	}
	body := http.MaxBytesReader(w, r.Body, s.cfg.MaxFileBytes+formOverhead)
	mr := multipart.NewReader(body, params["boundary"])
	fail := func(e *httpx.Error) (SubmitRequest, *httpx.Error) {
		req.File.Discard()
		return SubmitRequest{}, e
	}
	var seenMode, seenConfig bool
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(s.bodyErr(err))
		}
		switch part.FormName() {
		case ParamFile:
			if req.File != nil {
				return fail(invalidParam(ParamFile, "given more than once"))
			}
			u, e := s.ReceiveFile(part)
			if e != nil {
				return fail(e)
			}
			req.File, req.FileName = u, part.FileName()
		case ParamMode:
			if seenMode {
				return fail(invalidParam(ParamMode, "given more than once"))
			}
			seenMode = true
			if req.Mode, err = readField(part, ParamMode, maxFieldBytes); err != nil {
				return fail(s.fieldErr(ParamMode, err))
			}
		case ParamPreprocessingConfig:
			if seenConfig {
				return fail(invalidParam(ParamPreprocessingConfig, "given more than once"))
			}
			seenConfig = true
			if req.PreprocessingConfig, err = readField(part, ParamPreprocessingConfig, MaxPreprocessingConfigBytes); err != nil {
				return fail(s.fieldErr(ParamPreprocessingConfig, err))
			}
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return fail(s.bodyErr(err))
			}
		}
		_ = part.Close()
	}
	if req.File == nil {
		return fail(httpx.ParamError(http.StatusUnprocessableEntity, httpx.CodeUnprocessable, ParamFile,
			"is required (a multipart file part)"))
	}
	return req, nil
}

var errFieldTooLong = errors.New("field too long")

func readField(r io.Reader, name string, limit int) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return "", err
	}
	if len(b) > limit {
		return "", errFieldTooLong
	}
	return string(b), nil
}

func (s *Service) fieldErr(name string, err error) *httpx.Error {
	if errors.Is(err, errFieldTooLong) {
		return invalidParam(name, "too long")
	}
	return s.bodyErr(err)
}

// bodyErr maps an error reading the multipart body.
func (s *Service) bodyErr(err error) *httpx.Error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return httpx.Errorf(http.StatusRequestEntityTooLarge, httpx.CodePayloadTooLarge,
			"the body is larger than %d bytes", mbe.Limit)
	}
	return httpx.Errorf(http.StatusBadRequest, httpx.CodeInvalidBody, "malformed multipart/form-data body")
}
