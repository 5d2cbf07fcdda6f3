package apierr

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The public types of an imaginary client package, written as the package
// doc tells client packages to write them.
type pubAPIError struct {
	StatusCode int
	Method     string
	URL        string
	Code       string
	Message    string
	Parameter  string
	RequestID  string
	Body       []byte
	Attempts   int
}

func (e *pubAPIError) Error() string { return (*APIError)(e).Error() }
func (e *pubAPIError) Unwrap() error { return (*APIError)(e).Unwrap() }

type pubFieldError struct {
	Field   string
	Message string
}

func (e pubFieldError) Error() string { return FieldError(e).Error() }

type pubValidationError struct{ Errors []pubFieldError }

func (e *pubValidationError) Error() string    { return ValidationMessage(e.Errors) }
func (e *pubValidationError) Unwrap() error    { return ErrInvalidParameter }
func (e *pubValidationError) Fields() []string { return FieldNames(e.Errors) }

func export(err error) error { return Export[pubAPIError, pubFieldError, pubValidationError](err) }

func TestExportAPIError(t *testing.T) {
	t.Parallel()
	internal := &APIError{StatusCode: 404, Method: "GET", URL: "https://h/v2/status/j", Parameter: "jobId", RequestID: "r1", Attempts: 1}

	t.Run("bare error becomes the public type itself", func(t *testing.T) {
		t.Parallel()
		err := export(internal)
		pub, ok := err.(*pubAPIError)
		require.True(t, ok, "got %T", err)
		assert.Equal(t, "jobId", pub.Parameter)
		assert.Equal(t, internal.Error(), pub.Error())
		assert.ErrorIs(t, err, ErrNotFound)
	})
	t.Run("wrapped error keeps its chain and message", func(t *testing.T) {
		t.Parallel()
		wrapped := fmt.Errorf("pfc: upload failed: %w", internal)
		err := export(wrapped)
		assert.Equal(t, wrapped.Error(), err.Error())
		var pub *pubAPIError
		require.ErrorAs(t, err, &pub)
		assert.Equal(t, 404, pub.StatusCode)
		assert.ErrorIs(t, err, ErrNotFound)
		assert.Same(t, err, export(err), "exporting twice changes nothing")
	})
	t.Run("other causes stay reachable", func(t *testing.T) {
		t.Parallel()
		err := export(errors.Join(context.Canceled, fmt.Errorf("x: %w", internal)))
		assert.ErrorIs(t, err, context.Canceled)
		var pub *pubAPIError
		assert.ErrorAs(t, err, &pub)
	})
}

func TestExportValidationError(t *testing.T) {
	t.Parallel()
	var fe FieldErrors
	fe.Add("width", "must be 32..10000, got %d", 5)
	fe.Add("bgColor", "bad")
	fe.Add("width", "again")
	internal := fe.Err()

	err := export(internal)
	pub, ok := err.(*pubValidationError)
	require.True(t, ok, "got %T", err)
	assert.Equal(t, internal.Error(), pub.Error())
	assert.Equal(t, []string{"width", "bgColor"}, pub.Fields())
	assert.Equal(t, pubFieldError{Field: "bgColor", Message: "bad"}, pub.Errors[1])
	assert.ErrorIs(t, err, ErrInvalidParameter)

	err = export(fmt.Errorf("pfc: srcPath: %w", internal))
	require.ErrorAs(t, err, &pub)
	assert.Len(t, pub.Errors, 3)
}

func TestExportLeavesOtherErrorsAlone(t *testing.T) {
	t.Parallel()
	assert.NoError(t, export(nil))
	plain := fmt.Errorf("open: %w", fs.ErrNotExist)
	assert.Same(t, plain, export(plain))
	assert.Equal(t, context.Canceled, export(context.Canceled))
}

func TestRedactf(t *testing.T) {
	t.Parallel()
	redact := func(s string) string { return strings.ReplaceAll(s, "s3cret", "REDACTED") }
	cause := &APIError{StatusCode: 500}
	err := Redactf(redact, "pfc: job %s: %w (and %w)", "id-s3cret", cause, context.Canceled)
	assert.Equal(t, "pfc: job id-REDACTED: pfc: 500 Internal Server Error (and context canceled)", err.Error())
	assert.ErrorIs(t, err, ErrServer)
	assert.ErrorIs(t, err, context.Canceled)
	var ae *APIError
	assert.ErrorAs(t, err, &ae)

	err = Redactf(nil, "plain %s", "s3cret")
	assert.Equal(t, "plain s3cret", err.Error())
	assert.Nil(t, errors.Unwrap(err))
}
