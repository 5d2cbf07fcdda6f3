package pfc

// OutputFormat is the format of a corrected file: the outputType parameter
// of both correction APIs. Each client sends it in its API's spelling (the
// hosted API's jpg, png or original; the container's JPEG or PNG, where
// OutputOriginal sends nothing, the container's default). The empty value
// means the service default, the source format (PNG with the hosted
// API's background removal). "jpg" and any letter case are accepted too.
type OutputFormat string

// The output formats.
const (
	OutputJPEG     OutputFormat = "jpeg"
	OutputPNG      OutputFormat = "png"
	OutputOriginal OutputFormat = "original" // keep the source format when supported
)

// SkipMode is the skip parameter of both correction APIs: which non-photo
// images are left uncorrected. The empty value means the service default,
// SkipClipart (the container's PFC_SKIP_MODE). The services ignore it
// while AI preset selection is active.
type SkipMode string

// The non-photo skip modes.
const (
	SkipClipart SkipMode = "clipart"
	SkipLegacy  SkipMode = "legacy"
	SkipNone    SkipMode = "none" // correct everything
)

// IgnoredParam is a supplied correction parameter that the service will
// not use, as a Plan of either correction client reports it.
type IgnoredParam struct {
	// Name is the parameter's wire name, e.g. "bgColor".
	Name string
	// Reason says which rule makes it ineffective.
	Reason string
}

// String returns "name: reason".
func (p IgnoredParam) String() string { return p.Name + ": " + p.Reason }
