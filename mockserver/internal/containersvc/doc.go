// Package containersvc is the core of the correction container mock:
// the mount directories, the mock licence, uploads, corrections by
// the reference engine, corrected files, direct file mode, the JSON log
// lines with the container's message ids, the TTL sweep on an injectable
// clock and the /version document. Its methods take plain values and
// return typed results or an *httpx.Error; the HTTP layer only translates.
//
// # Configuration
//
// Config mirrors every PFC_* variable (ConfigFromEnv reads them for the
// standalone binary) and adds the mock's own fields (Root, LogWriter,
// Clock, Engine, MaxUploadBytes, Workers). Their effect:
//
//   - PFC_SITE_URL: base of corrected_url (SiteURL + /output/ + name).
//   - PFC_LOG_LEVEL: filters the log lines; an unknown value logs
//     unknownLogLevelMessage at warning and info is used.
//   - PFC_IMG_CACHE_TTL: age (minutes, on the clock) after which the sweep,
//     every 10 minutes, deletes uploads, files in input/ and outputs.
//   - PFC_SKIP_MODE, PFC_SKIP_EXIF_SOFTWARE, PFC_PRESERVE_INPUT_FILENAME,
//     PFC_ENABLE_COMPOSITE: defaults of the skip, skip-exif-software,
//     preserveInputFileName and enableComposite query parameters.
//   - PFC_AVX, PFC_USE_FASTFAE, PFC_USE_AI_SERVER (and enableComposite,
//     which has no composite detector behind it): accepted, validated and
//     reported by /version; they change no pixel.
//
// # Mounts
//
// Root holds sdk_license, presets, addons, input, output and scene; New
// creates what is missing. addons and scene are created and left alone.
//
// Licence: a *.lic file in sdk_license holding the JSON of License,
// signed with the mock's fixed (public) key; NewLicense and WriteLicense
// make one. It is checked on every correction: without a valid one the
// "corrected" file is a byte copy of the input, scene is -1, and
// licenseMessage (warning) gives the reason.
//
// Presets: a preset name resolves, in order, to the file presets/NAME,
// NAME.preset or NAME.pcp (the engine's text preset format, see
// engine/correct), or to the directory presets/NAME holding an exported AI
// preset group: one file per scene, named after the scene's number or name
// ("2.preset", "landscape.preset"), plus an optional "default.preset" for
// every scene; after scene detection, the detected scene's file applies.
// Failing those, the engine's built-in groups ("Universal", "Pro", "School
// and Sports", "Attractions and Cruise Lines", "none") are accepted; a
// mounted file of the same name overrides the built-in. Anything else is
// 400 unknownPresetMessage.
//
// outputColorSpace: original (the default) keeps the pixels and the
// source's ICC profile; srgb converts the colours from the source's profile
// to sRGB and embeds an sRGB profile (an untagged image is taken as sRGB and
// left as it is); the file name of an ICC profile in presets/ (else 400
// invalidParameterMessage) converts to that profile and embeds it. The
// conversion (engine/colorspace) applies RGB matrix/TRC profiles at both
// ends; with a LUT-based profile, or a file that is no ICC profile, the
// colours and the source's profile are left as they are and
// correctionSkippedMessage (info) says so.
//
// # Direct file mode
//
// A file copied into input/ is an image key: GET /pfc/{file name} corrects
// it with no upload. With preserveInputFileName (or
// PFC_PRESERVE_INPUT_FILENAME) the output is output/{same name}; without,
// a generated name (32 hex digits and the output format's extension).
// Outputs are written to a hidden temporary file in output/ and renamed,
// so output/ never shows half a file. Callers copying into input/ should
// do the same (the sanity check refuses keys starting with a dot).
//
// # Errors and choices where the API documentation says "not shown"
//
// Error body: the shared httpx.Error JSON, {"status", "code", "message",
// "parameter"}. For the documented rows, code is the row's message id
// (e.g. {"status":400,"code":"unknownPresetMessage",...}), so a client can
// tell the 400s and 503s apart; for conditions the API documentation has no
// row for, code is one of httpx's codes (invalid_parameter, unknown_parameter,
// payload_too_large, not_found, unavailable).
//
//   - Unknown output type: 400, code unknownOutputTypeMessage, logged at
//     debug like the other 400 rows. Accepted: JPEG, jpg, PNG, any case.
//   - Malformed query values (outputQuality outside 40..100, non-decimal
//     integers, booleans other than true/false, sizes outside 32..10000 as
//     on the hosted API, scale outside 1..62500, unknown or repeated
//     parameters): 400 invalid_parameter or unknown_parameter, logged as
//     invalidParameterMessage (debug). Every problem is in the message.
//     GET /version takes no parameter: any is 400 unknown_parameter.
//   - Resize: only one size parameter applies, by priority width > height
//     > long > short > scale.
//   - An image the engine rejects (short side under 32 px, not a JPEG or
//     PNG, corrupt) is 503 processingPFCErrorMessage, the only documented row
//     for an engine failure; the message says why. Above 21:1 the image is
//     written uncorrected (correctionSkippedMessage, info).
//   - A failed write of the output ("couldn't write image", e.g. disk full)
//     is 503 temporaryOutputFileMessage; a failed close or rename 503
//     temporaryCloseOutputFileMessage. On upload, a temporary input file
//     that cannot be written (the message also says "couldn't write
//     image"), closed or renamed is 503 temporaryFileWritingMessage.
//   - Upload size: at most MaxUploadBytes (50 MB by default), else 413
//     bodyTooLargeMessage; an empty body is 400 emptyBodyMessage.
//   - Image keys: 32 hex digits plus .jpg or .png; the sanity check allows
//     any plain file name of at most 255 bytes (direct file mode).
//   - /version: VersionInfo (version and build "10.7.2.1269", features,
//     licence state, the PFC_* settings in effect).
//
// # Log lines
//
// One JSON object per line: "time", "level" (debug, info, warning,
// error), "msg" (the message id) and attributes: "status" (the HTTP status
// tied to the row), "detail", "imageKey", "error" where relevant. The ids
// and their levels are the Msg* constants.
package containersvc
