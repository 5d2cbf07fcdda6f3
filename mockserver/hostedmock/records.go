package hostedmock

import (
	"github.com/pfcsdk/pfc-go/hosted"
)

// PresetRecord is a preset as the hosted mock's presets endpoints
// answer it (the API documents presetId, name and description; the rest
// is the mock's choice, see the package documentation).
type PresetRecord struct {
	// PresetID is the path parameter of /presets/{presetId}.
	PresetID string `json:"presetId"`
	// Name is what /pfc's preset parameter refers to.
	Name string `json:"name"`
	// Description is as created.
	Description string `json:"description"`
	// Status is "awaiting_upload" until the file is PUT, then "ready".
	Status string `json:"status"`
	// Size is the uploaded file's length in bytes (0 before).
	Size int64 `json:"size"`
	// CreatedAt is the creation time.
	CreatedAt hosted.Timestamp `json:"createdAt"`
	// UpdatedAt is the last change (the file upload).
	UpdatedAt hosted.Timestamp `json:"updatedAt"`
	// UploadURL is the pre-signed PUT URL for the file; only in the
	// answer of POST /presets/.
	UploadURL string `json:"uploadUrl,omitempty"`
}

// PresetList is the body of the hosted mock's GET /presets.
type PresetList struct {
	// Presets is the page, in creation order.
	Presets []PresetRecord `json:"presets"`
	// Total counts the account's presets.
	Total int `json:"total"`
	// Limit is the page size used.
	Limit int `json:"limit"`
	// Offset is the number of presets skipped.
	Offset int `json:"offset"`
}

// PresetDeleted is the body of the hosted mock's DELETE
// /presets/{presetId}.
type PresetDeleted struct {
	// PresetID is the deleted preset.
	PresetID string `json:"presetId"`
	// Deleted is always true.
	Deleted bool `json:"deleted"`
}
