package bgsvc

import (
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Licence states of LicenseStatus.Status.
const (
	Licensed   = "Licensed"
	Unlicensed = "Unlicensed"
)

// ExpiryMonthLayout is the "expiration date" form of /Authorize (YYYY-MM);
// /Status uses time.RFC3339 in UTC.
const ExpiryMonthLayout = "2006-01"

// LicenseStatus is the answer of /Authorize and /Status.
type LicenseStatus struct {
	Status         string `json:"status"`
	Message        string `json:"message"`
	LicensedOrg    string `json:"licensed org"`
	ExpirationDate string `json:"expiration date"`
	// ModelVersion is set by /Status only.
	ModelVersion string `json:"model_version,omitempty"`
}

// Authorize applies a licence key (GET /Authorize/{license_key}). An empty
// key is 400; a valid one activates the instance, an invalid one answers
// Unlicensed (status 200) and leaves the activation as it was.
func (s *Service) Authorize(key string) (*LicenseStatus, *httpx.Error) {
	if key == "" {
		return nil, httpx.ParamError(http.StatusBadRequest, httpx.CodeMissingParameter, ParamLicenseKey, "is required")
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.LicenseKey)) != 1 {
		s.log.Info("licence key refused")
		return &LicenseStatus{Status: Unlicensed, Message: "Invalid license key"}, nil
	}
	if !s.now().Before(s.cfg.LicenseExpiry) {
		s.log.Info("licence key expired")
		return &LicenseStatus{Status: Unlicensed, Message: "License expired",
			LicensedOrg: s.cfg.Organization, ExpirationDate: s.expiryMonth()}, nil
	}
	s.mu.Lock()
	s.activated = true
	s.mu.Unlock()
	s.log.Info("container activated", "org", s.cfg.Organization)
	return &LicenseStatus{Status: Licensed, Message: "License activated successfully",
		LicensedOrg: s.cfg.Organization, ExpirationDate: s.expiryMonth()}, nil
}

// Status reports the instance's licence and the model version (GET /Status).
func (s *Service) Status() *LicenseStatus {
	if !s.isActivated() {
		return &LicenseStatus{Status: Unlicensed, Message: "Container not activated", ModelVersion: s.cfg.ModelVersion}
	}
	return &LicenseStatus{Status: Licensed, Message: "License is valid",
		LicensedOrg: s.cfg.Organization, ExpirationDate: s.cfg.LicenseExpiry.UTC().Format(time.RFC3339),
		ModelVersion: s.cfg.ModelVersion}
}

// CheckActivated returns the 403 not_activated answer until the instance
// is activated (and after the licence expired). Handlers of image
// endpoints call it before reading a body.
func (s *Service) CheckActivated() *httpx.Error {
	if !s.isActivated() {
		return notActivated()
	}
	return nil
}

func (s *Service) isActivated() bool {
	s.mu.Lock()
	a := s.activated
	s.mu.Unlock()
	return a && s.now().Before(s.cfg.LicenseExpiry)
}

func (s *Service) expiryMonth() string { return s.cfg.LicenseExpiry.UTC().Format(ExpiryMonthLayout) }
