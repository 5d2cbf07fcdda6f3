package bgsvc

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/engine/matting"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Modes of SubmitImage.
const (
	ModePortrait = string(matting.ModePortrait)
	ModeGeneral  = string(matting.ModeGeneral)
	// DefaultMode is the mode of a request without one.
	DefaultMode = ModeGeneral
)

// options are the validated parameters of a job.
type options struct {
	mode           matting.Mode
	preprocessing  bool
	postprocessing bool
	pre            preConfig
}

// preConfig is the understood part of preprocessing_config.
type preConfig struct {
	Denoise     *bool `json:"denoise"`
	DetectFaces *bool `json:"detect_faces"`
}

func (c preConfig) denoise() bool     { return c.Denoise == nil || *c.Denoise }
func (c preConfig) detectFaces() bool { return c.DetectFaces == nil || *c.DetectFaces }

// parseOptions validates the parameters of SubmitImage: "" means an
// absent form field, nil an absent query flag.
func parseOptions(mode string, preprocessing, postprocessing *string, config string) (options, *httpx.Error) {
	var o options
	switch mode {
	case "":
		o.mode = matting.Mode(DefaultMode)
	case ModePortrait, ModeGeneral:
		o.mode = matting.Mode(mode)
	default:
		return o, invalidParam(ParamMode, "must be %q or %q, got %q", ModePortrait, ModeGeneral, clip(mode))
	}
	var err *httpx.Error
	if o.preprocessing, err = parseBool(ParamPreprocessing, preprocessing); err != nil {
		return o, err
	}
	if o.postprocessing, err = parseBool(ParamPostprocessing, postprocessing); err != nil {
		return o, err
	}
	if o.pre, err = parsePreConfig(config); err != nil {
		return o, err
	}
	return o, nil
}

// parseBool reads a query flag: absent (nil) is false; a value given
// must be true or false in any case, so an empty one is refused.
func parseBool(param string, p *string) (bool, *httpx.Error) {
	if p == nil {
		return false, nil
	}
	v := *p
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, invalidParam(param, "must be true or false, got %q", clip(v))
}

// parsePreConfig validates preprocessing_config: empty, or a JSON object
// whose understood keys have the right types; other keys are ignored.
func parsePreConfig(s string) (preConfig, *httpx.Error) {
	var c preConfig
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	if len(s) > MaxPreprocessingConfigBytes {
		return c, invalidParam(ParamPreprocessingConfig, "longer than %d bytes", MaxPreprocessingConfigBytes)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return c, invalidParam(ParamPreprocessingConfig, "must be a JSON object")
	}
	for _, f := range []struct {
		key string
		dst **bool
	}{{"denoise", &c.Denoise}, {"detect_faces", &c.DetectFaces}} {
		key, dst := f.key, f.dst
		raw, ok := obj[key]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return preConfig{}, invalidParam(ParamPreprocessingConfig, "%s must be a boolean", key)
		}
		*dst = &b
	}
	return c, nil
}

// clip shortens a client's value quoted in an error message.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}
