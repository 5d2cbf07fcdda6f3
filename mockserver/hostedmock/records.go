package hostedmock

import (
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
)

// PresetRecord is a preset as the hosted mock's presets endpoints answer
// it (the API documents presetId, name and description; the rest is the
// mock's choice, see the package documentation). Its fields, with their
// JSON names: PresetID (presetId), Name, Description string; Status
// string ("awaiting_upload" until the file is PUT, then "ready"); Size
// int64 (bytes of the file, 0 before); CreatedAt, UpdatedAt
// hosted.Timestamp (creation, last change); UploadURL string (the
// pre-signed PUT URL, only in the answer of POST /presets/). It prints
// with UploadURL's signature REDACTED.
type PresetRecord = hostedsvc.PresetRecord

// PresetList is the body of the hosted mock's GET /presets. Its fields:
// Presets []PresetRecord (the page, in creation order); Total int (the
// account's presets); Limit int (the page size used); Offset int (the
// presets skipped).
type PresetList = hostedsvc.PresetList

// PresetDeleted is the body of the hosted mock's DELETE
// /presets/{presetId}. Its fields: PresetID string (presetId, the deleted
// preset); Deleted bool (always true).
type PresetDeleted = hostedsvc.PresetDeleted
