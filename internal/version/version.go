package version

// Version is the semantic version of this SDK.
const Version = "0.1.0"

// UserAgent returns the product token the SDK sends as User-Agent:
// "pfc-go/" followed by Version.
func UserAgent() string { return "pfc-go/" + Version }
