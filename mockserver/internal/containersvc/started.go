package containersvc

// JobsStarted returns how many jobs the service started since it was
// created: PUT /pfc answers that stored an image (an imageKey returned).
func (s *Service) JobsStarted() int { return int(s.started.Load()) }
