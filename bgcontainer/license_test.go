package bgcontainer

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestDecodeLicenseStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		body      string
		want      LicenseStatus
		wantField string // error naming this field
	}{
		{name: "authorize", body: `{"status":"Licensed","message":"ok","licensed org":"Acme Photo","expiration date":"2027-11","extra":1}`,
			want: LicenseStatus{Status: Licensed, Message: "ok", Organization: "Acme Photo",
				Expiration: time.Date(2027, 11, 1, 0, 0, 0, 0, time.UTC), ExpirationRaw: "2027-11", ExpirationIsMonth: true}},
		{name: "status", body: `{"status":"Licensed","message":"valid","licensed org":"Acme","expiration date":"2027-11-30T23:59:59Z","model_version":"372.0"}`,
			want: LicenseStatus{Status: Licensed, Message: "valid", Organization: "Acme",
				Expiration: time.Date(2027, 11, 30, 23, 59, 59, 0, time.UTC), ExpirationRaw: "2027-11-30T23:59:59Z", ModelVersion: "372.0"}},
		{name: "status with offset and fraction", body: `{"status":"Licensed","expiration date":"2027-11-30T23:59:59.250+02:00"}`,
			want: LicenseStatus{Status: Licensed, Expiration: time.Date(2027, 11, 30, 21, 59, 59, 250e6, time.UTC),
				ExpirationRaw: "2027-11-30T23:59:59.250+02:00"}},
		{name: "python isoformat without zone", body: `{"status":"Licensed","expiration date":"2027-11-30T23:59:59.123456"}`,
			want: LicenseStatus{Status: Licensed, Expiration: time.Date(2027, 11, 30, 23, 59, 59, 123456000, time.UTC),
				ExpirationRaw: "2027-11-30T23:59:59.123456"}},
		{name: "space separator", body: `{"status":"Licensed","expiration date":"2027-11-30 23:59:59"}`,
			want: LicenseStatus{Status: Licensed, Expiration: time.Date(2027, 11, 30, 23, 59, 59, 0, time.UTC),
				ExpirationRaw: "2027-11-30 23:59:59"}},
		{name: "date only", body: `{"status":"Licensed","expiration date":"2027-11-30"}`,
			want: LicenseStatus{Status: Licensed, Expiration: time.Date(2027, 11, 30, 0, 0, 0, 0, time.UTC), ExpirationRaw: "2027-11-30"}},
		{name: "unknown date form kept raw", body: `{"status":"Licensed","expiration date":"Nov 2027"}`,
			want: LicenseStatus{Status: Licensed, ExpirationRaw: "Nov 2027"}},
		{name: "unlicensed, nulls", body: `{"status":"Unlicensed","message":"Invalid license key","licensed org":null,"expiration date":""}`,
			want: LicenseStatus{Status: Unlicensed, Message: "Invalid license key"}},
		{name: "org wrong type", body: `{"status":"Licensed","licensed org":42}`, wantField: "licensed org"},
		{name: "date wrong type", body: `{"expiration date":{"y":2027}}`, wantField: "expiration date"},
		{name: "not json", body: `<html>`, wantField: ""},
		{name: "array", body: `[]`, wantField: ""},
		{name: "truncated", body: `{"status":"Lic`, wantField: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeLicenseStatus(epStatus, strings.NewReader(tt.body), nil)
			if tt.want.Status == "" {
				var re *pfc.ResponseError
				require.ErrorAs(t, err, &re)
				assert.ErrorIs(t, err, pfc.ErrInvalidResponse)
				assert.Equal(t, tt.wantField, re.Field)
				assert.Equal(t, string(epStatus), re.Endpoint)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, *got)
			assert.Equal(t, tt.want.Status == Licensed, got.IsLicensed())
		})
	}
}
