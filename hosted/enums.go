package hosted

// FileType is the kind of uploaded file: the fileType parameter of
// GET /upload and GET /pfc. The empty value means the service default,
// FileTypeImage.
type FileType string

// The file types the service accepts.
const (
	FileTypeImage FileType = "image"
	FileTypeVideo FileType = "video"
)

// Valid reports whether t is one of the documented file types.
func (t FileType) Valid() bool { return validEnum("fileType", string(t)) }

// ResizeMode is the resize parameter of GET /pfc: the upscaling mode used
// when a resize (width, height, long, short or scale) is requested. The
// empty value means the service default, ResizeAuto.
type ResizeMode string

// The upscaling modes.
const (
	ResizeAuto         ResizeMode = "auto"
	ResizeGeneral      ResizeMode = "general"
	ResizeSmallDetails ResizeMode = "smallDetails"
)

// Valid reports whether m is one of the documented resize modes.
func (m ResizeMode) Valid() bool { return validEnum("resize", string(m)) }

// Shadow is the bgShadow parameter of GET /pfc: a synthetic shadow under
// the subject, available with the image and solid-colour background modes.
// The empty value means no shadow.
type Shadow string

// The synthetic shadow kinds.
const (
	ShadowSoft     Shadow = "soft"
	ShadowHard     Shadow = "hard"
	ShadowFloating Shadow = "floating"
)

// Valid reports whether s is one of the documented shadow kinds.
func (s Shadow) Valid() bool { return validEnum("bgShadow", string(s)) }

// Values of the preset parameter of GET /pfc for the built-in preset
// groups. Any custom preset name uploaded through the presets endpoints is
// valid too, so CorrectionOptions.Preset is a plain string.
const (
	// PresetUniversal enables AI preset selection, like omitting preset.
	PresetUniversal = "Universal"
	// PresetPro selects the Pro group.
	PresetPro = "Pro"
	// PresetSchoolAndSports selects the School and sports group.
	PresetSchoolAndSports = "School and Sports"
	// PresetAttractionsAndCruiseLines selects the Attractions and cruise
	// lines group.
	PresetAttractionsAndCruiseLines = "Attractions and Cruise Lines"
	// PresetNone skips correction; only resize and output operations run.
	PresetNone = "none"
)

// BackgroundMode is the effective background handling of a /pfc request.
type BackgroundMode string

// The background modes in the service's priority order, after
// BackgroundNone (background kept, removeBackground not set).
const (
	BackgroundNone        BackgroundMode = "none"
	BackgroundGenerative  BackgroundMode = "generative"
	BackgroundImage       BackgroundMode = "image"
	BackgroundColor       BackgroundMode = "color"
	BackgroundTransparent BackgroundMode = "transparent"
)
