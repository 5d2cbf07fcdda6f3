package bgsvc

// JobsStarted returns how many jobs the service started since it was
// created: SubmitImage answers that queued a job.
func (s *Service) JobsStarted() int { return int(s.started.Load()) }
