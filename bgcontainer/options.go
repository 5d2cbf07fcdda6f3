package bgcontainer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// SubmitOptions are the optional parameters of SubmitImage. The zero value
// sends none of them, so the container's defaults apply (the mock's:
// general mode, no preprocessing, no postprocessing).
type SubmitOptions struct {
	// Mode is ModePortrait or ModeGeneral (form field mode); empty sends
	// none.
	Mode Mode
	// Preprocessing enables preprocessing (query preprocessing=true or
	// false); nil sends none.
	Preprocessing *bool
	// Postprocessing enables spill reduction (query postprocessing=true
	// or false); nil sends none.
	Postprocessing *bool
	// PreprocessingConfig is marshalled with encoding/json and sent as the
	// form field preprocessing_config; it must marshal to a JSON object (a
	// struct or a map). nil, or a nil map or pointer, sends none. The mock understands "denoise" and
	// "detect_faces" (booleans); see the package documentation.
	PreprocessingConfig any
	// PreprocessingConfigJSON is preprocessing_config as JSON text, sent
	// as is after checking that it is one JSON object. Set at most one of
	// PreprocessingConfig and PreprocessingConfigJSON.
	PreprocessingConfigJSON string
	// FileName is the file name of the multipart file part (the job's
	// original_name). Empty means the base name of the path for
	// SubmitImageFile, else "image" with the extension of the content.
	FileName string
}

// Bool returns a pointer to b, for SubmitOptions.Preprocessing and
// Postprocessing.
func Bool(b bool) *bool { return &b }

// formField is one text field of the SubmitImage multipart body.
type formField struct {
	Name, Value string
}

// encode validates o and returns the query parameters and the form fields
// (in wire order: mode, preprocessing_config) it sends. Problems are
// reported together in a *pfc.ValidationError.
func (o *SubmitOptions) encode() (url.Values, []formField, error) {
	var fe fieldErrors
	q := url.Values{}
	var fields []formField
	if o == nil {
		return q, nil, nil
	}
	switch {
	case o.Mode == "":
	case o.Mode.Valid():
		fields = append(fields, formField{paramMode, string(o.Mode)})
	default:
		fe.add(paramMode, "must be %q or %q, got %q", ModePortrait, ModeGeneral, oneLine(string(o.Mode), 64))
	}
	if o.Preprocessing != nil {
		q.Set("preprocessing", strconv.FormatBool(*o.Preprocessing))
	}
	if o.Postprocessing != nil {
		q.Set("postprocessing", strconv.FormatBool(*o.Postprocessing))
	}
	cfg, err := o.configJSON()
	if err != nil {
		fe.add(paramPreprocessingConfig, "%s", err)
	} else if cfg != "" {
		fields = append(fields, formField{paramPreprocessingConfig, cfg})
	}
	if err := fe.err(); err != nil {
		return nil, nil, err
	}
	return q, fields, nil
}

// configJSON returns the preprocessing_config text ("" for none).
func (o *SubmitOptions) configJSON() (string, error) {
	var data []byte
	if o.PreprocessingConfig != nil {
		var err error
		if data, err = json.Marshal(o.PreprocessingConfig); err != nil {
			return "", fmt.Errorf("cannot be marshalled to JSON: %v", err)
		}
		if string(data) == "null" {
			data = nil // a typed nil (map, pointer) is no config, like nil
		}
	}
	switch {
	case data != nil && o.PreprocessingConfigJSON != "":
		return "", fmt.Errorf("set PreprocessingConfig or PreprocessingConfigJSON, not both")
	case o.PreprocessingConfigJSON != "":
		data = []byte(o.PreprocessingConfigJSON)
		if !json.Valid(data) {
			return "", fmt.Errorf("is not valid JSON")
		}
	case data == nil:
		return "", nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return "", fmt.Errorf("must be a JSON object")
	}
	return string(data), nil
}
