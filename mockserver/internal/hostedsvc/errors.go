package hostedsvc

import (
	"net/http"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Errors are answered with the one JSON error body of every mock,
// httpx.Error, and its httpx.Code* codes.

func notFound(param, format string, args ...any) *httpx.Error {
	e := httpx.Errorf(http.StatusNotFound, httpx.CodeNotFound, format, args...)
	e.Parameter = param
	return e
}

// internalErr logs err and returns a 500 that does not repeat it: the
// detail holds paths of the server's disk.
func (s *Service) internalErr(err error) *httpx.Error { return httpx.Internal(s.log, err) }

// Job result codes: the "code" field of FAILED and REJECTED job records
// (0 for every other state).
const (
	JobCodeRejected         = 1000 // the Processor rejected the input (no code of its own)
	JobCodeFormat           = 1001 // not JPEG/PNG (image) or MP4/MOV (video), or a CMYK JPEG
	JobCodeFileTypeMismatch = 1002 // fileType of /pfc differs from the upload's, or from the content
	JobCodeDimensions       = 1003 // pixel size outside the correction limits
	JobCodeFileTooLarge     = 1004 // file too large for the operation (background removal: 30 MB)
	JobCodeUnknownPreset    = 1005 // preset name not built in and not an uploaded preset
	JobCodeBackgroundImage  = 1006 // bgFileKey is not a JPEG or PNG image
	JobCodeProcessingFailed = 2001 // the engine failed (e.g. a corrupt file)
	JobCodeNoEngine         = 2002 // no image processor is configured
	JobCodeShutdown         = 2003 // the server shut down while the job ran
)
