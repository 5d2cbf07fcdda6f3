package hostedsvc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/color"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
)

// cacheEntry is a stored result reusable by identical requests.
type cacheEntry struct {
	key       string
	blob      string
	ext, mime string
	fromJob   string
	dims      *dimensions
	usage     usage
	detection *detectionData
	crop      *cropRect
	expiry    *activity.Timer
}

// cacheKey identifies the effective request: file content, and every
// option that changes the output. It leaves out cache,
// includeDetectionData and webhookUrl, which do not.
func cacheKey(j *job, fileSHA, bgSHA [sha256.Size]byte) string {
	req := buildRequest(j, "", "")
	presetSHA := j.presetSHA // zero for the built-in groups
	k := struct {
		Account, File, FileType, Preset, PresetSHA, OutputType string
		Quality                                                int
		Resize                                                 ResizeRequest
		AutoCrop                                               *AutoCropRequest
		Skip                                                   string
		RemoveGlares, PreserveMetadata, UpdateThumbnail        bool
		BgMode, BgPrompt, BgImage, BgShadow                    string
		BgColor                                                color.NRGBA
		// UploadType: a hit must not skip the check that the /pfc fileType
		// matches the upload's.
		UploadType string
	}{
		Account: j.account, File: hex.EncodeToString(fileSHA[:]), FileType: j.fileType, UploadType: j.upType, Preset: j.preset,
		PresetSHA: hex.EncodeToString(presetSHA[:]), OutputType: j.spec.outputType, Quality: req.Quality,
		Resize: req.Resize, AutoCrop: req.AutoCrop, Skip: req.Skip, RemoveGlares: req.RemoveGlares,
		PreserveMetadata: req.PreserveMetadata, UpdateThumbnail: req.UpdateThumbnail,
	}
	if b := req.Background; b != nil {
		k.BgMode, k.BgPrompt, k.BgShadow, k.BgColor = b.Mode, b.Prompt, b.Shadow, b.Color
		if b.Mode == BackgroundImage {
			k.BgImage = hex.EncodeToString(bgSHA[:])
		}
	}
	raw, _ := json.Marshal(k)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// storeCacheLocked remembers j's result for identical requests until the
// retention of the last job that used it ends. Called with s.mu held.
func (s *Service) storeCacheLocked(j *job) {
	if old := s.cache[j.cacheKey]; old != nil {
		s.dropCacheLocked(old)
	}
	e := &cacheEntry{key: j.cacheKey, blob: "c-" + j.cacheKey, ext: strings.TrimPrefix(j.resultName, "corrected."), mime: j.mime,
		fromJob: j.id, dims: j.dims, usage: *j.usage, detection: j.detection, crop: j.crop}
	if err := s.linkBlob(j.result, e.blob); err != nil {
		s.log.Warn("caching a result failed", "job", j.id, "error", err)
		return
	}
	s.cache[e.key] = e
	e.expiry = s.tracker.AfterFunc(s.cfg.Retention, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cache[e.key] == e {
			s.dropCacheLocked(e)
		}
	})
}

func (s *Service) dropCacheLocked(e *cacheEntry) {
	e.expiry.Stop()
	delete(s.cache, e.key)
	_ = s.store.Remove(e.blob)
}

// completeFromCacheLocked completes j at once with the cached result e:
// a new job id and URL, the cached record's data, statusText naming the
// job that produced it; the webhook is sent as for any completion.
// Called with s.mu held.
func (s *Service) completeFromCacheLocked(j *job, e *cacheEntry) {
	s.removeInputs(j)
	j.resultName = "corrected." + e.ext
	j.result = "r-" + j.id + "." + e.ext
	if err := s.linkBlob(e.blob, j.result); err != nil {
		j.result = ""
		j.status, j.code, j.statusText = StatusFailed, JobCodeProcessingFailed, "reading the cached result failed"
	} else {
		j.status, j.statusText = StatusCompleted, "cache hit: result of job "+e.fromJob
		j.corrected = j.base + FilesRoute + j.id + "/" + j.resultName
		j.mime = e.mime
		// The entry lives as long as the newest job that uses it.
		e.expiry.Stop()
		e.expiry = s.tracker.AfterFunc(s.cfg.Retention, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.cache[e.key] == e {
				s.dropCacheLocked(e)
			}
		})
	}
	j.startedAt = j.createdAt
	taken := 0.0
	j.timeTaken = &taken
	j.dims, j.detection, j.crop = e.dims, e.detection, e.crop
	u := e.usage
	j.usage = &u
	s.publishLocked(j)
	s.log.Info("job completed from cache", "job", j.id, "from", e.fromJob)
}
