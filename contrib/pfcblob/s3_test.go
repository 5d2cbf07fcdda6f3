package pfcblob_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// fakeS3 is an S3-compatible server (gofakes3, in memory) on a loopback
// port.
type fakeS3 struct {
	URL     string
	backend *s3mem.Backend
}

func startS3(t testing.TB, buckets ...string) *fakeS3 {
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	for _, b := range buckets {
		require.NoError(t, backend.CreateBucket(b))
	}
	return &fakeS3{URL: srv.URL, backend: backend}
}

// openBucket opens the bucket name of the server at url through s3blob
// and the AWS SDK for Go v2.
func openBucket(t testing.TB, url, name string) *blob.Bucket {
	client := s3.New(s3.Options{
		Region:                     "us-east-1",
		Credentials:                credentials.NewStaticCredentialsProvider("test-access-key", "test-secret-key", ""),
		BaseEndpoint:               aws.String(url),
		UsePathStyle:               true,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	b, err := s3blob.OpenBucket(context.Background(), client, name, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// contextWithCancel is t's context with a cancel of its own.
func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}
