package containersvc

import (
	"context"
	"io"
	"log/slog"
	"time"
)

// Message ids of the container's JSON log lines. The API documentation's
// table gives the first thirteen, their levels and the HTTP status tied to
// each; the last ones are the mock's own, for conditions the documentation
// describes without an id.
const (
	MsgNoContentType        = "noContentTypeRequestMessage"     // debug, PUT /pfc, 400
	MsgBodyRequest          = "bodyRequestMessage"              // error, PUT /pfc, 503
	MsgTemporaryFileCreate  = "temporaryFileCreationMessage"    // error, PUT /pfc, 503
	MsgTemporaryFileWrite   = "temporaryFileWritingMessage"     // error, PUT /pfc, 503
	MsgNoID                 = "noIdMessage"                     // debug, GET /pfc/, 400
	MsgInvalidID            = "invalidIdMessage"                // debug, GET /pfc/{id}, 400
	MsgUnknownImageID       = "unknownImageIdMessage"           // debug, GET /pfc/{id}, 400
	MsgUnknownPreset        = "unknownPresetMessage"            // debug, GET /pfc/{id}, 400
	MsgTemporaryOutputFile  = "temporaryOutputFileMessage"      // error, GET /pfc/{id}, 503
	MsgTemporaryCloseOutput = "temporaryCloseOutputFileMessage" // error, GET /pfc/{id}, 503
	MsgProcessingPFCError   = "processingPFCErrorMessage"       // error, GET /pfc/{id}, 503
	MsgUnknownOutputType    = "unknownOutputTypeMessage"        // debug, GET /pfc/{id}, 400 (mock's choice)
	MsgCleanUpFile          = "cleanUpFileMessage"              // info, cleanup, no status

	// The mock's own ids.
	MsgInvalidParameter = "invalidParameterMessage"  // debug, GET /pfc/{id}: malformed or unknown query parameter, 400
	MsgBodyTooLarge     = "bodyTooLargeMessage"      // debug, PUT /pfc: body above MaxUploadBytes, 413
	MsgUnknownLogLevel  = "unknownLogLevelMessage"   // warning, startup: PFC_LOG_LEVEL not recognised, info used
	MsgLicense          = "licenseMessage"           // warning, GET /pfc/{id}: no valid licence, image left as is
	MsgSkipped          = "correctionSkippedMessage" // info, GET /pfc/{id}: correction not applied (aspect, EXIF software, skip mode)
	MsgCorrected        = "correctedMessage"         // debug, GET /pfc/{id}: success
	MsgUploaded         = "uploadedMessage"          // debug, PUT /pfc: success
	MsgCleanedUp        = "cleanedUpMessage"         // debug, cleanup: a file past its TTL was deleted
	MsgStarted          = "startedMessage"           // info, startup: the configuration in effect
	MsgFaultInjected    = "faultInjectedMessage"     // warning, any route: the mock's fault injection changed this answer
)

// LevelName is how the log lines spell a level: the documented level
// names are debug, info, warning and error. The standalone command spells
// every backend's levels with it.
func LevelName(l slog.Level) string {
	switch {
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warning"
	}
	return "error"
}

// newLogger returns the JSON logger: one object per line with "time"
// (now, on the service's clock, so that log times agree with the sweep's
// ages under a fake clock), "level" (debug, info, warning, error), "msg"
// (the message id) and the line's attributes, filtered by level.
func newLogger(w io.Writer, level slog.Level, now func() time.Time) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.LevelKey:
				if l, ok := a.Value.Any().(slog.Level); ok {
					return slog.String(slog.LevelKey, LevelName(l))
				}
			case slog.TimeKey:
				return slog.Time(slog.TimeKey, now())
			}
			return a
		},
	}))
}

// logID writes one line with message id id at level.
func (s *Service) logID(level slog.Level, id string, attrs ...any) {
	s.log.Log(context.Background(), level, id, attrs...)
}

// FaultLogger returns the logger the mock's fault injector writes to:
// every record it gets becomes one line of the container's JSON log at
// warning with message id MsgFaultInjected, whatever level and message it
// was logged with, keeping its attributes (the injector gives backend,
// route, sequence number, kind and method, never the path or query, which
// may hold a key or preset name the caller chose).
func (s *Service) FaultLogger() *slog.Logger {
	return slog.New(faultHandler{s.log.Handler()})
}

// faultHandler rewrites records as MsgFaultInjected warnings.
type faultHandler struct{ h slog.Handler }

func (f faultHandler) Enabled(ctx context.Context, _ slog.Level) bool {
	return f.h.Enabled(ctx, slog.LevelWarn)
}

func (f faultHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, slog.LevelWarn, MsgFaultInjected, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(a)
		return true
	})
	return f.h.Handle(ctx, out)
}

func (f faultHandler) WithAttrs(as []slog.Attr) slog.Handler { return faultHandler{f.h.WithAttrs(as)} }
func (f faultHandler) WithGroup(name string) slog.Handler    { return faultHandler{f.h.WithGroup(name)} }
