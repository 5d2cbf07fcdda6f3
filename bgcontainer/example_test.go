package bgcontainer_test

import (
	"errors"
	"fmt"

	"github.com/pfcsdk/pfc-go/bgcontainer"
)

// Process ids are checked before any request is sent.
func ExampleValidateProcessID() {
	err := bgcontainer.ValidateProcessID("42")
	fmt.Println(errors.Is(err, bgcontainer.ErrInvalidProcessID))
	fmt.Println(err)
	fmt.Println(bgcontainer.ValidateProcessID("0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10"))
	// Output:
	// true
	// pfc: invalid parameters: process_id: must be a UUID (8-4-4-4-12 hexadecimal digits), got "42"
	// <nil>
}

// SubmitOptions set only what they name; the container's defaults apply to
// the rest. A preprocessing configuration can be any Go value that
// marshals to a JSON object.
func ExampleSubmitOptions() {
	opts := bgcontainer.SubmitOptions{
		Mode:                bgcontainer.ModePortrait,
		Postprocessing:      bgcontainer.Bool(true), // spill reduction
		Preprocessing:       bgcontainer.Bool(true),
		PreprocessingConfig: map[string]bool{"denoise": false},
	}
	fmt.Println(opts.Mode.Valid())
	// Output: true
}
