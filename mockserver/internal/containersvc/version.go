package containersvc

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// BuildLabel is the container build the mock imitates (the correction
// container).
const BuildLabel = "10.7.2.1269"

// Features the mock reports in /version.
var features = []string{"pfc", "ai-scene-detection", "presets", "ai-preset-groups", "resize", "autocrop", "direct-file-mode"}

// VersionInfo is the /version document. The API documentation shows only the
// SDK version and the supported features; the rest is the mock's choice.
type VersionInfo struct {
	// Version is the SDK version, the container's build label.
	Version string `json:"version"`
	// Build repeats the build label.
	Build string `json:"build"`
	// Features lists the supported features; "composite" is present when
	// PFC_ENABLE_COMPOSITE is true.
	Features []string `json:"features"`
	// License says whether a valid licence is mounted, and why not.
	License LicenseInfo `json:"license"`
	// Settings are the PFC_* variables in effect, by name.
	Settings map[string]string `json:"settings"`
	// Mock is true: the document comes from the mock.
	Mock bool `json:"mock"`
}

// LicenseInfo is the licence part of VersionInfo.
type LicenseInfo struct {
	Valid  bool   `json:"valid"`
	Reason string `json:"reason,omitempty"`
}

// Settings returns the PFC_* variables in effect, as the container would
// read them from its environment.
func (s *Service) Settings() map[string]string {
	c := &s.cfg
	return map[string]string{
		EnvSiteURL:               c.SiteURL,
		EnvLogLevel:              LevelName(s.level),
		EnvImageCacheTTL:         strconv.Itoa(int(c.ImageTTL.Minutes())),
		EnvAVX:                   c.AVX,
		EnvUseFastFAE:            strconv.FormatBool(c.UseFastFAE),
		EnvSkipMode:              c.SkipMode,
		EnvSkipEXIFSoftware:      strings.Join(c.SkipEXIFSoftware, ","),
		EnvPreserveInputFileName: strconv.FormatBool(c.PreserveInputFileName),
		EnvEnableComposite:       strconv.FormatBool(*c.EnableComposite),
		EnvUseAIServer:           strconv.FormatBool(*c.UseAIServer),
	}
}

// Version returns the /version document (GET /version, also the health
// check).
func (s *Service) Version() *VersionInfo {
	v := &VersionInfo{Version: BuildLabel, Build: BuildLabel, Settings: s.Settings(), Mock: true}
	v.Features = append(v.Features, features...)
	if *s.cfg.EnableComposite {
		v.Features = append(v.Features, "composite")
	}
	if err := s.LicenseError(); err != nil {
		v.License.Reason = err.Error()
	} else {
		v.License.Valid = true
	}
	return v
}

// OpenOutput opens a corrected file for GET /output/{name}. A name that
// fails the sanity check, or that names no regular file, is 404 (the
// handler serves the file with http.ServeContent).
func (s *Service) OpenOutput(name string) (*os.File, os.FileInfo, *httpx.Error) {
	notFound := httpx.Errorf(http.StatusNotFound, httpx.CodeNotFound, "no such output file")
	if !safeName(name) {
		return nil, nil, notFound
	}
	f, err := os.Open(filepath.Join(s.mounts.Output, name))
	if err != nil {
		return nil, nil, notFound
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notFound
	}
	return f, fi, nil
}
