package bgsvc

import (
	"net/http"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// CodeInvalidFile is the error code of a 404 answer to SubmitImage whose
// file is not an image the service can read (the documented "File invalid").
const CodeInvalidFile = "invalid_file"

// Parameter names used in error answers.
const (
	ParamFile                = "file"
	ParamMode                = "mode"
	ParamPreprocessing       = "preprocessing"
	ParamPostprocessing      = "postprocessing"
	ParamPreprocessingConfig = "preprocessing_config"
	ParamProcessID           = "process_id"
	ParamLicenseKey          = "license_key"
)

func notActivated() *httpx.Error {
	return httpx.Errorf(http.StatusForbidden, httpx.CodeNotActivated,
		"the container is not activated: apply a valid licence key with GET /Authorize/{license_key} first")
}

func jobNotFound(id string) *httpx.Error {
	e := httpx.Errorf(http.StatusNotFound, httpx.CodeNotFound, "process_id %s not found (unknown, or removed)", id)
	e.Parameter = ParamProcessID
	return e
}

func invalidParam(param, format string, args ...any) *httpx.Error {
	return httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, param, format, args...)
}

// internalErr logs err and returns a 500 that does not repeat it: the
// detail may hold paths of the server's disk.
func (s *Service) internalErr(err error) *httpx.Error {
	s.log.Error("internal error", "error", err)
	return httpx.Errorf(http.StatusInternalServerError, httpx.CodeInternal, "internal error (details are in the server log)")
}

// unavailable is the 503 of a service that is closing.
func unavailable() *httpx.Error { return httpx.Unavailable() }
