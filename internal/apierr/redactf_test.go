package apierr

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

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
